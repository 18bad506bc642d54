// The explorer runs the same pipeline as `plan`: its first plan is `plan --json`'s (circuit MIP, fleet and a
// relative model path included), its re-plans come from the worker, and keys in a burst land like slow ones.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { Explorer } from '../../src/ui/tui/Explorer.js';
import {
  exportTo,
  launchTo,
  openExplorer,
  type ExplorerSession,
} from '../../src/commands/explore-run.js';
import { planJson } from '../../src/ui/plan-json.js';
import { initialState, reducer } from '../../src/ui/tui/state.js';
import { fakeResult, scenario } from './fixtures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const strip = (s: string | undefined): string =>
  // eslint-disable-next-line no-control-regex
  (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/ +$/gm, '');
const tick = (ms = 15) => new Promise((r) => setTimeout(r, ms));
const sessions: ExplorerSession[] = [];
const dir = mkdtempSync(join(tmpdir(), 'vramplan-explorer-'));

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  // A scenario whose model is a config.json beside it, opened from another working directory.
  const model = JSON.parse(readFileSync(join(ROOT, 'catalogs/models/llama-2-7b.json'), 'utf8'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(model.config));
  writeFileSync(
    join(dir, 'relative.yaml'),
    [
      'name: relative model path',
      'model: ./config.json',
      'job: { kind: fine-tune, methods: [lora, qlora], seq: 1024, globalBatch: 8 }',
      'hardware: { owned: [{ gpu: rtx-4090, count: 2 }], counts: { min: 1, max: 2 } }',
      'power: { circuits: [us-120v-15a] }',
    ].join('\n'),
  );
  // Owned GPUs on two nodes and two circuits: the circuit-assignment MIP places them.
  writeFileSync(
    join(dir, 'circuits.yaml'),
    [
      'name: two circuits',
      'model: llama-2-7b',
      'job: { kind: fine-tune, methods: [lora], seq: 1024, globalBatch: 8 }',
      'hardware: { owned: [{ gpu: rtx-3090, count: 4 }], counts: { min: 4, max: 4 }, gpusPerNode: 2 }',
      'power: { circuits: [us-120v-15a, us-120v-15a] }',
    ].join('\n'),
  );
});
afterAll(() => {
  sessions.forEach((s) => s.planner.close());
  rmSync(dir, { recursive: true, force: true });
});

async function open(file: string, height = 30, width = 100) {
  const session = await openExplorer(file, {});
  sessions.push(session);
  let quitCode: number | null = null;
  const ui = render(
    <Explorer
      file={file}
      scenario={session.scenario}
      result={session.result}
      width={width}
      height={height}
      replan={(s, p) => session.planner.plan(s, p)}
      exportTo={exportTo}
      launchTo={(plan, sc) => launchTo(file, plan, sc, dir)}
      onQuit={(c) => (quitCode = c)}
    />,
  );
  while (strip(ui.lastFrame()) === '') await tick();
  await tick(50); // Ink attaches its input listener in an effect after the first frame
  return { ui, session, frame: () => strip(ui.lastFrame()), quit: () => quitCode };
}

const planCli = (file: string) => {
  const r = spawnSync(process.execPath, [CLI, 'plan', file, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: r.status, json: JSON.parse(r.stdout) };
};

describe('explorer = plan --json', () => {
  const files = [
    'scenarios/default.yaml',
    'scenarios/4x-rtx3090-one-circuit.yaml',
    'scenarios/serve-mixed-fleet.yaml', // serving: the fleet MIP
    join(dir, 'relative.yaml'), // model: ./config.json
    join(dir, 'circuits.yaml'), // two circuits: the circuit-assignment MIP
  ];
  for (const file of files)
    it(`first plan of ${file.replace(dir, '<tmp>')}`, async () => {
      const cli = planCli(file);
      expect(cli.status).toBe(0);
      const { ui, session, frame } = await open(file, 30, 160);
      // Which MIP backend answered depends on load (jsLP within its share of the budget, else HiGHS): the
      // answer must agree, not the solver that found it.
      const solverFree = (x: unknown) =>
        JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'backend' ? undefined : v)));
      const mine = solverFree(planJson(session.result));
      const theirs = solverFree(cli.json);
      expect(mine.plans[0]).toEqual(theirs.plans[0]);
      expect(mine.fleet).toEqual(theirs.fleet);
      expect(mine.fits).toBe(cli.json.fits);
      // What is drawn: the selected plan's detail pane names the CLI's first plan.
      expect(frame()).toContain(`#1 ${cli.json.plans[0].id}`);
      ui.unmount();
    });

  it('the serving fleet and the circuit MIP are in the explorer result', async () => {
    const fleet = await openExplorer('scenarios/serve-mixed-fleet.yaml', {});
    sessions.push(fleet);
    expect(fleet.result.fleet).toBeDefined();
    const circuits = await openExplorer(join(dir, 'circuits.yaml'), {});
    sessions.push(circuits);
    expect(circuits.result.plans[0]!.power.assignment).toBe('mip');
  });
});

describe('explorer keys', () => {
  it('a burst of keys lands where the same keys typed slowly land', async () => {
    const slow = await open('scenarios/default.yaml');
    for (const k of ['j', 'j', 'j', 'k', '2', 'j', 'j']) {
      slow.ui.stdin.write(k);
      await tick();
    }
    const fast = await open('scenarios/default.yaml');
    fast.ui.stdin.write('jjjk2jj');
    // On a busy machine Ink may draw the burst over a few frames: wait for the last one (at most 1 s).
    while (fast.frame() !== slow.frame()) await tick(25);
    const pos = (f: string) => /· (\d+)\/\d+ ·/.exec(f)?.[1];
    expect(slow.frame()).toMatch(/by x fastest/);
    expect(fast.frame()).toBe(slow.frame());
    // Pasting jjj moves three.
    const paste = await open('scenarios/default.yaml');
    paste.ui.stdin.write('jjj');
    while (pos(paste.frame()) !== '4') await tick(25);
    expect(pos(paste.frame())).toBe('4');
    [slow, fast, paste].forEach((x) => x.ui.unmount());
  });

  it('an edit re-plans in the worker and redraws the new ranking', async () => {
    const x = await open('scenarios/default.yaml');
    const before = x.session.result.plans.length;
    // Each key waits for its frame however late a loaded machine draws it (the test's own timeout bounds the wait):
    // a key pressed before the last one is drawn could step past the knob.
    const press = async (k: string) => {
      const before = x.frame();
      x.ui.stdin.write(k);
      while (x.frame() === before) await tick(25);
    };
    await press('i');
    // The knob list starts at the method list... step the sequence length down: knob 'sequence'.
    for (let i = 0; i < 10 && !/❯.*sequence/.test(x.frame()); i++) await press('j');
    expect(x.frame()).toMatch(/❯.*sequence/);
    x.ui.stdin.write('\u001b[D');
    while (!/re-planned in \d+ ms/.test(x.frame())) await tick(25);
    expect(x.frame()).toMatch(
      /re-planned in \d+ ms: [\d,]+ feasible configurations → [\d,]+ distinct plans/,
    );
    expect(before).toBeGreaterThan(0);
    x.ui.unmount();
  });

  it('Ctrl-C quits with 130 (runExplorer turns off the exit-0 handler of Ink); q quits with 0 when plans fit', async () => {
    // ink-testing-library keeps Ink's own Ctrl-C handler, so the key goes through the reducer here.
    const s = initialState('t.yaml', scenario, fakeResult(3));
    expect(reducer(s, { type: 'key', input: 'c', key: { ctrl: true } }).quit).toBe(130);
    const b = await open('scenarios/default.yaml');
    b.ui.stdin.write('q');
    while (b.quit() === null) await tick(25);
    expect(b.quit()).toBe(0);
  });
});

describe('explorer when nothing fits', () => {
  it('shows the nearest fixes, as plan does, and quits with 2', async () => {
    const file = 'test/fixtures/scenarios/nothing-fits.yaml';
    const cli = spawnSync(process.execPath, [CLI, 'plan', file], { cwd: ROOT, encoding: 'utf8' });
    expect(cli.status).toBe(2);
    const x = await open(file);
    const f = x.frame();
    expect(f).toMatch(/Nothing fits: [\d,]+ candidates searched/);
    expect(f).toMatch(/nearest fixes/);
    const firstFix = /Nearest fixes \(one change each\):\n {2}- (.*)/.exec(cli.stdout)?.[1];
    expect(firstFix).toBeDefined();
    expect(f).toContain(firstFix!.slice(0, 40));
    x.ui.stdin.write('q');
    while (x.quit() === null) await tick(25);
    expect(x.quit()).toBe(2);
  });
});

describe('explorer at 80x24', () => {
  it('every line fits in 80 columns and the whole screen in 23 rows', async () => {
    const x = await open('scenarios/default.yaml', 23, 80);
    const lines = x.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(x.frame()).toMatch(/#1 /);
    x.ui.unmount();
  });
});

describe('explorer launch key', () => {
  it("l writes the selected plan's launch folder, as launch <scenario> --plan N does", async () => {
    const x = await open('scenarios/default.yaml');
    x.ui.stdin.write('j');
    while (!/· 2\/\d+ ·/.test(x.frame())) await tick(25);
    x.ui.stdin.write('l');
    while (!/wrote .*launch-2/.test(x.frame())) await tick(25);
    expect(x.frame()).toMatch(/wrote .*launch-2/);
    const second = x.session.result.plans[1]!;
    const readme = readFileSync(join(dir, 'launch-2', 'README.md'), 'utf8');
    expect(readme).toContain(`Engine: **${second.choices.engine}**`);
    // A second press refuses to overwrite the folder.
    x.ui.stdin.write('l');
    while (!/exists/.test(x.frame())) await tick(25);
    expect(x.frame()).toMatch(/exists/);
    x.ui.unmount();
  });
});
