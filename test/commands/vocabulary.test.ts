// One vocabulary: every error line starts with "vramplan:" (commander's parse errors too),
// --export says what it wrote, the report says how feasible configurations make distinct plans, and
// numbers in text carry thousands separators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-vocab-');
beforeAll(() => expect(cliBuilt()).toBe(true));
afterAll(() => scratch.remove());

describe('errors start with vramplan:', () => {
  it.each([
    [['estimate', '--bogus'], "vramplan: unknown option '--bogus'"],
    [['frobnicate'], "vramplan: unknown command 'frobnicate'"],
    [['estimate', '--model'], "vramplan: option '--model <model>' argument missing"],
    [['catalog'], "vramplan: missing required argument 'kind'"],
    [['launch', 'scenarios/default.yaml'], "vramplan: required option '--out <dir>' not specified"],
  ])('%j', (args, first) => {
    const r = runCli(args);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain(first);
    for (const line of r.stderr.split('\n').filter((l) => l !== ''))
      expect(line).toMatch(/^vramplan: /);
  });
});

describe('plan report', () => {
  it('--export prints the path it wrote, on stderr (stdout stays JSON)', () => {
    const file = `${scratch.dir}/plans.json`;
    const r = runCli(['plan', 'scenarios/default.yaml', '--json', '--export', file]);
    expect(r.status).toBe(0);
    expect(() => JSON.parse(r.stdout) as unknown).not.toThrow();
    expect(r.stderr).toMatch(
      new RegExp(
        `^wrote ${file} \\(10 plans of [\\d,]+ feasible configurations → [\\d,]+ distinct plans, json\\)\n$`,
      ),
    );
  });

  it('--export alone prints one line saying what it wrote, not the report (as launch does)', () => {
    const file = `${scratch.dir}/plans.md`;
    const r = runCli(['plan', 'scenarios/default.yaml', '--export', file]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      expect.stringMatching(/^wrote .*plans\.md \(10 plans of /),
      '',
    ]);
  });

  it('explains feasible configurations against distinct plans in one line', () => {
    const r = runCli(['plan', 'scenarios/default.yaml', '--no-tui']);
    expect(r.stdout.split('\n')[1]).toMatch(
      /^searched [\d,]+ candidates .*; [\d,]+ feasible configurations → [\d,]+ distinct plans, 10 shown \(a plan folds the variants.*; --top N for more\)$/,
    );
  });

  it('the report, launch --plan, --export and --json name one plan count in the same words', () => {
    const count = /([\d,]+ feasible configurations → ([\d,]+) distinct plans)/;
    const report = count.exec(runCli(['plan', 'scenarios/default.yaml', '--no-tui']).stdout)!;
    expect(report).not.toBeNull();
    const launch = runCli([
      'launch',
      'scenarios/default.yaml',
      '--plan',
      '99999',
      '--out',
      `${scratch.dir}/never`,
    ]);
    expect(launch.status).toBe(1);
    expect(launch.stderr).toBe(
      `vramplan: --plan: got '99999'; expected a plan number from 1 to ${report[2]} (${report[1]}, as ranked by 'vramplan plan')\n`,
    );
    const exported = runCli(['plan', 'scenarios/default.yaml', '--export', `${scratch.dir}/n.csv`]);
    expect(count.exec(exported.stdout)![1]).toBe(report[1]);
    // Ranked without a limit, the plans are exactly the distinct plans counted.
    const all = JSON.parse(
      runCli(['plan', 'scenarios/default.yaml', '--json', '--top', '1000']).stdout,
    ) as {
      plans: unknown[];
      searched: { distinctPlans: number; feasible: number };
    };
    expect(all.plans.length).toBe(all.searched.distinctPlans);
    expect(report[1]).toBe(
      `${all.searched.feasible.toLocaleString('en-US')} feasible configurations → ${all.plans.length.toLocaleString('en-US')} distinct plans`,
    );
  });

  it('writes wall watts, tokens/s and catalog figures with thousands separators', () => {
    expect(runCli(['catalog', 'gpus']).stdout).toMatch(/h100-sxm .* 3,35\d GB\/s/);
    expect(runCli(['catalog', 'circuits']).stdout).toMatch(/5,760 W/);
  });
});
