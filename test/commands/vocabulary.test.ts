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
    expect(r.stderr).toContain(`wrote ${file} (10 plans, json)`);
  });

  it('explains feasible configurations against distinct plans in one line', () => {
    const r = runCli(['plan', 'scenarios/default.yaml', '--no-tui']);
    expect(r.stdout.split('\n')[1]).toMatch(
      /^searched [\d,]+ candidates .*; [\d,]+ feasible configurations → 10 distinct plans shown \(a plan folds the variants/,
    );
  });

  it('writes wall watts, tokens/s and catalog figures with thousands separators', () => {
    expect(runCli(['catalog', 'gpus']).stdout).toMatch(/h100-sxm .* 3,35\d GB\/s/);
    expect(runCli(['catalog', 'circuits']).stdout).toMatch(/5,760 W/);
  });
});
