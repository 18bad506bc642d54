// the explorer's edits go through the validation `plan` gives a scenario file. An invalid
// edit is refused with the CLI's one-line message after the knob's name; the plans and the scenario stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { stringify } from 'yaml';
import { Explorer } from '../../src/ui/tui/Explorer.js';
import { openExplorer, type ExplorerSession } from '../../src/commands/explore-run.js';
import { scenarioError } from '../../src/io/plan-scenario.js';
import {
  applyEdit,
  KNOB_LABEL,
  KNOBS,
  knobValue,
  parseEdit,
  type Knob,
} from '../../src/ui/tui/edit.js';
import { initialState, reducer } from '../../src/ui/tui/state.js';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';
import { fakeResult, scenario as fixture } from './fixtures.js';

const FILE = 'scenarios/default.yaml';
const scratch = scratchDir('vramplan-edits-');
const strip = (s: string | undefined): string =>
  // eslint-disable-next-line no-control-regex
  (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/ +$/gm, '');
const tick = (ms = 15) => new Promise((r) => setTimeout(r, ms));
let session: ExplorerSession;

beforeAll(async () => {
  expect(cliBuilt()).toBe(true);
  session = await openExplorer(FILE, {});
});
afterAll(() => {
  session?.planner.close();
  scratch.remove();
});

/** What `plan` prints for the scenario with the edit applied, the file name cut (it names another file). */
function cliMessage(knob: Knob, text: string): string {
  const parsed = parseEdit(knob, text);
  if ('error' in parsed) throw new Error(parsed.error);
  const file = scratch.file(`${knob}.yaml`, stringify(applyEdit(session.scenario, parsed.edit)));
  const r = runCli(['plan', file]);
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr
    .trim()
    .replace(/^vramplan: /, '')
    .replace(/ — .*$/, '')
    .replace(`${file}: `, '');
}

const EDITS: [Knob, string, RegExp][] = [
  ['seq', '2000000', /expected number to be <=1000000 \(got 2000000\) → at job\.seq/],
  ['count', '0', /expected number to be >=1 \(got 0\) → at hardware\.counts/],
  ['count', '-2', /\(got -2\) → at hardware\.counts/],
  ['gpu', 'rtx-9999', /hardware\.owned\.0\.gpu: got 'rtx-9999'/],
  ['model', 'no-such-model', /model: got 'no-such-model'/],
  ['microBatch', '0', /\(got 0\) → at search\.microBatches\.0/],
  ['budget', '-5', /\(got -5\) → at limits\.budgetUsd/],
  ['circuits', 'no-such-circuit', /power\.circuits\.0: got 'no-such-circuit'/],
];

describe('explorer edits: the CLI validation, the CLI message', () => {
  it('each invalid edit is refused with the message plan prints for it, naming the knob', async () => {
    let s = initialState(FILE, session.scenario, session.result, 30, 200, (x) =>
      scenarioError(FILE, x, session.detected),
    );
    for (const [knob, text, pattern] of EDITS) {
      const expected = cliMessage(knob, text);
      expect(expected).toMatch(pattern);
      s = {
        ...s,
        status: null,
        mode: 'edit',
        knob: KNOBS.indexOf(knob),
        typing: true,
        draft: text,
      };
      const after = reducer(s, { type: 'editCommit' });
      expect(after.status).toEqual({
        kind: 'error',
        text: `${KNOB_LABEL[knob]}: ${FILE}: ${expected}`,
      });
      // Nothing re-plans, and the scenario keeps its value.
      expect(after.planGen).toBe(0);
      expect(after.scenario).toBe(session.scenario);
      expect(after.result).toBe(session.result);
      expect(knobValue(after.scenario, knob)).toBe(knobValue(session.scenario, knob));
    }
  });

  it('drawn: a sequence past the scenario limit is refused in the footer, the table unchanged', async () => {
    const ui = render(
      <Explorer
        file={FILE}
        scenario={session.scenario}
        result={session.result}
        width={200}
        height={30}
        replan={(x, p) => session.planner.plan(x, p)}
        check={(x) => scenarioError(FILE, x, session.detected)}
        exportTo={() => ''}
      />,
    );
    const frame = () => strip(ui.lastFrame());
    while (frame() === '') await tick();
    await tick(50);
    const press = async (k: string) => {
      const before = frame();
      ui.stdin.write(k);
      while (frame() === before) await tick(25);
    };
    const table = frame();
    await press('i');
    for (let i = 0; i < 10 && !/❯ sequence length/.test(frame()); i++) await press('j');
    // Enter, type 2000000 (past the scenario's job.seq limit of 1,000,000), Enter. (A sequence past llama-2-13b's
    // 4096 positions plans: Unsloth and torchtitan scale RoPE themselves.)
    await press('\r');
    for (const c of '2000000') await press(c);
    await press('\r');
    expect(frame()).toContain('sequence length: ');
    expect(frame()).toMatch(/expected number to be <=1000000 \(got 2000000\)/);
    expect(frame()).toMatch(/❯ sequence length\s+2048/);
    expect(frame()).not.toMatch(/re-planning/);
    // Esc back to the table: the same plans as before the edit.
    await press('\u001b');
    while (/edit scenario/.test(frame())) await tick(25);
    const rows = (f: string) => f.split('\n').slice(1, 8).join('\n');
    expect(rows(frame())).toBe(rows(table));
    ui.unmount();
  });
});

describe('a re-plan that fails keeps the plans and their scenario', () => {
  it('planFailed puts back the scenario of the plans shown', () => {
    const s0 = initialState('t.yaml', fixture, fakeResult(3), 30, 100, () => null);
    const s1 = reducer(
      { ...s0, mode: 'edit', knob: KNOBS.indexOf('seq'), typing: true, draft: '4096' },
      { type: 'editCommit' },
    );
    expect(s1.planGen).toBe(1);
    expect(knobValue(s1.scenario, 'seq')).toBe('4096');
    const s2 = reducer(s1, { type: 'planFailed', gen: 1, message: 't.yaml: boom' });
    expect(s2.status).toEqual({ kind: 'error', text: 't.yaml: boom' });
    expect(s2.scenario).toBe(fixture);
    expect(s2.result).toBe(s0.result);
  });
});
