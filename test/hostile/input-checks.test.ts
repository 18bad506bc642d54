/**
 * Input that used to be accepted, ignored or misreported: each is one `vramplan:` line naming the field and
 * what is allowed, exit 1, and nothing changed in the working folder (or, for --detect and an axolotl file
 * asking for two quantizations, a note that says so).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-input-checks-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const DEFAULT = join(ROOT, 'scenarios/default.yaml');

function run(args: readonly string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: scratch.dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tree = () => readdirSync(scratch.dir, { recursive: true, encoding: 'utf8' }).sort();

/** One `vramplan:` line matching `why`, exit 1, nothing on stdout, the working folder unchanged. */
function refused(args: readonly string[], why: RegExp) {
  const before = tree();
  const r = run(args);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/^vramplan: /);
  expect(r.stderr).toMatch(why);
  expect(tree()).toEqual(before);
}

describe('refused, one line', () => {
  it('a plans.json of schemaVersion 2', () => {
    const exported = run(['plan', DEFAULT, '--json', '--top', '1', '--no-tui']);
    expect(exported.status, exported.stderr).toBe(0);
    const doc = JSON.parse(exported.stdout) as Record<string, unknown>;
    doc.schemaVersion = 2;
    const file = scratch.file('v2.json', JSON.stringify(doc));
    refused(
      ['launch', '--from-plan', file, '--out', 'v2'],
      /v2\.json: schemaVersion: got 2; expected 1 \(the version 'vramplan plan --json' writes\)/,
    );
  });

  const fromOnly: [string, string][] = [
    ['--gpu', 'h100-sxm'],
    ['--gpus', '8'],
    ['--model', 'llama-2-7b'],
  ];
  for (const [flag, value] of fromOnly)
    it(`plan <scenario> ${flag}: applies only with --from`, () =>
      refused(
        ['plan', DEFAULT, flag, value, '--no-tui'],
        new RegExp(`^vramplan: ${flag}: applies only with --from; the scenario sets`),
      ));

  for (const cases of ['../../../etc/passwd', '/etc/hostname', 'sub/cases.json', '.hidden.json'])
    it(`validate --cases ${cases}: a name in calibration/ only`, () =>
      refused(
        ['validate', '--cases', cases],
        /--cases: got '.*'; expected the name of a JSON file in calibration\/: cases\.json or informative\.json/,
      ));

  it('datasetTokens: 1e300', () => {
    const text = readFileSync(DEFAULT, 'utf8').replace(/datasetTokens: .*/, 'datasetTokens: 1e300');
    expect(text).toContain('1e300');
    refused(
      ['plan', scratch.file('huge.yaml', text), '--no-tui'],
      /huge\.yaml: .*<=1000000000000000 \(got 1e\+300\) → at job\.datasetTokens/,
    );
  });

  it("catalog models '😀' lists nothing", () =>
    refused(['catalog', 'models', '😀'], /catalog models: no model matches '😀'/));

  it('an axolotl base_model that is a number is blamed on the key', () =>
    refused(
      ['estimate', '--from', scratch.file('num.yaml', 'base_model: 12345\n'), '--gpu', 'rtx-4090'],
      /num\.yaml: base_model: got 12345; expected a Hugging Face repo id or a path/,
    ));
});

describe('said, not silent', () => {
  it('--detect without nvidia-smi', () => {
    const r = run(['plan', DEFAULT, '--detect', '--top', '1', '--no-tui'], {
      PATH: join(scratch.dir, 'no-bin'),
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: --detect: nvidia-smi reported no GPUs/);
  });

  it('axolotl load_in_4bit and load_in_8bit both true', () => {
    const file = scratch.file(
      'both.yaml',
      'base_model: llama-2-7b\nadapter: qlora\nload_in_4bit: true\nload_in_8bit: true\n',
    );
    const r = run(['estimate', '--from', file, '--gpu', 'rtx-4090']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /load_in_4bit and load_in_8bit: both true, which transformers refuses/,
    );
  });
});
