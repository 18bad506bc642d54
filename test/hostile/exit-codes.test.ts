/**
 * The exit-code table of the README: 0 done, 1 bad input, 2 nothing fits, 130 interrupted,
 * 70 internal error. Each command with a bad input exits 1 with one stderr line and no stack; the
 * "nothing fits" cases exit 2; a bad `--from` file is bad input (1), not "nothing fits".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-exit-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const NOTHING_FITS = 'test/fixtures/scenarios/nothing-fits.yaml';

describe('exit codes', () => {
  const badFrom = () =>
    scratch.file('bad.yaml', 'model_name_or_path: llama-2-7b\ncutoff_len: 1e12\n');
  const table: [string, () => string[], number][] = [
    ['estimate: done', () => ['estimate', '--model', 'llama-2-7b', '--json'], 0],
    ['estimate: bad flag', () => ['estimate', '--model', 'llama-2-7b', '--seq', '0'], 1],
    ['estimate: unknown model', () => ['estimate', '--model', 'no-such-model'], 1],
    ['estimate --from: a bad file is bad input', () => ['estimate', '--from', badFrom()], 1],
    ['estimate --from: a missing file', () => ['estimate', '--from', '/nonexistent.yaml'], 1],
    ['plan --from: a bad file', () => ['plan', '--from', badFrom(), '--gpu', 'rtx-4090'], 1],
    ['explain: bad GPU', () => ['explain', '--model', 'llama-2-7b', '--gpu', 'rtx-9999'], 1],
    ['plan: missing scenario', () => ['plan', '/nonexistent.yaml'], 1],
    ['plan: nothing fits', () => ['plan', NOTHING_FITS], 2],
    ['compare: missing scenario', () => ['compare', '/nonexistent.yaml', NOTHING_FITS], 1],
    ['launch: nothing fits', () => ['launch', NOTHING_FITS, '--out', `${scratch.dir}/x`], 2],
    [
      'launch: bad --from-plan',
      () => ['launch', '--from-plan', '/dev/zero', '--out', `${scratch.dir}/y`],
      1,
    ],
    ['launch: no source', () => ['launch', '--out', `${scratch.dir}/z`], 1],
    ['catalog: unknown id', () => ['catalog', 'gpus', 'rtx-9999'], 1],
    ['validate: missing cases file', () => ['validate', '--cases', 'nonexistent.json'], 1],
    ['unknown option', () => ['estimate', '--bogus'], 1],
  ];
  for (const [name, args, code] of table)
    it(`${name} → ${code}`, () => {
      const r = runCli(args());
      expect(r.status, r.stderr).toBe(code);
      expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
      if (code === 1) expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    });
});

describe("--from values are reported with the file's own key", () => {
  it('cutoff_len: 1e12 names cutoff_len, not --seq', () => {
    const f = scratch.file(
      'lf.yaml',
      'model_name_or_path: llama-2-7b\nfinetuning_type: lora\ncutoff_len: 1e12\n',
    );
    const r = runCli(['estimate', '--from', f]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/lf\.yaml: cutoff_len: got 1000000000000; expected an integer from 1/);
    expect(r.stderr).not.toMatch(/--seq/);
  });
  it('a sequence past the positions names cutoff_len', () => {
    const f = scratch.file(
      'pos.yaml',
      'model_name_or_path: llama-2-7b\nfinetuning_type: lora\ncutoff_len: 9000000\n',
    );
    const r = runCli(['plan', '--from', f, '--gpu', 'rtx-4090']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/pos\.yaml: cutoff_len: got 9000000; expected at most 4096/);
  });
  it('.nan is shown as NaN, not null', () => {
    const f = scratch.file(
      'nan.yaml',
      'model_name_or_path: llama-2-7b\nfinetuning_type: lora\ncutoff_len: .nan\n',
    );
    const r = runCli(['estimate', '--from', f]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cutoff_len: got NaN/);
    expect(r.stderr).not.toMatch(/got null/);
  });
  it('a missing model is "got nothing", not "got undefined"', () => {
    const r = runCli(['estimate', '--json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--model: got nothing/);
  });
});
