/**
 * across the hostile inputs (tampered plans, deep / endless / special files, --force
 * targets, bad flags and file values, unknown models), every refusal is one stderr line with no stack trace,
 * and no file is written or deleted anywhere: not in the working folder, the home folder (the Hub cache),
 * the temp folder, beside the input, or at --out.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-nothing-');
afterAll(scratch.remove);

const work = join(scratch.dir, 'work');
const home = join(scratch.dir, 'home');
const tmp = join(scratch.dir, 'tmp');
const inputs = join(scratch.dir, 'inputs');
const at = (name: string) => join(inputs, name);
const DEPTH = 20_000;

function run(args: readonly string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 170_000,
    env: {
      ...process.env,
      HOME: home,
      XDG_CACHE_HOME: join(home, '.cache'),
      TMPDIR: tmp,
      HF_HUB_OFFLINE: '1',
      FORCE_COLOR: '0',
      NO_COLOR: '1',
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every path under the scratch folder, to show nothing was written or deleted. */
const tree = (): string[] => readdirSync(scratch.dir, { recursive: true, encoding: 'utf8' }).sort();

beforeAll(() => {
  expect(cliBuilt()).toBe(true);
  for (const d of [work, home, tmp, inputs]) mkdirSync(d, { recursive: true });
  writeFileSync(join(work, 'keep.txt'), 'precious');
  const exported = at('plans.json');
  const r = spawnSync(
    process.execPath,
    [CLI, 'plan', join(ROOT, 'scenarios/default.yaml'), '--export', exported],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  const doc = JSON.parse(readFileSync(exported, 'utf8'));
  const tamper = (name: string, f: (p: Record<string, Record<string, unknown>>) => void) => {
    const copy = structuredClone(doc);
    f(copy.plans[0]);
    writeFileSync(at(name), JSON.stringify(copy));
  };
  tamper('tp3.json', (p) => (p.options!.tp = 3));
  tamper('seq.json', (p) => (p.options!.seq = 1_000_000));
  tamper('pp99.json', (p) => (p.options!.pp = 99));
  tamper('gpus3.json', (p) => Object.assign(p.options!, { tp: 2, gpus: 3 }));
  tamper('watts.json', (p) => Object.assign(p.hardware!, { powerLimitW: -5 }));
  writeFileSync(at('deep.json'), `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`);
  writeFileSync(at('cutoff.yaml'), 'model_name_or_path: llama-2-7b\ncutoff_len: 1e12\n');
  writeFileSync(at('nan.yaml'), 'model_name_or_path: llama-2-7b\ncutoff_len: .nan\n');
  writeFileSync(
    at('seq.yaml'),
    // On the Hugging Face engines only: none of them runs past the config's positions (Unsloth and torchtitan
    // scale RoPE themselves, so with them the scenario plans).
    readFileSync(join(ROOT, 'scenarios/default.yaml'), 'utf8')
      .replace('seq: 2048', 'seq: 1000000')
      .replace('rank: cost', 'search:\n  framework: hf\nrank: cost'),
  );
  execFileSync('mkfifo', [at('pipe.yaml')]);
});

const out = (n: string) => join(work, `out-${n}`);
const LAUNCH = ['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--gpu', 'rtx-4090'];
const CASES: [string, () => string[]][] = [
  [
    'tampered plan: TP 3 on 40 heads',
    () => ['launch', '--from-plan', at('tp3.json'), '--out', out('a')],
  ],
  [
    'tampered plan: seq past positions',
    () => ['launch', '--from-plan', at('seq.json'), '--out', out('b')],
  ],
  ['tampered plan: pp 99', () => ['launch', '--from-plan', at('pp99.json'), '--out', out('c')]],
  [
    'tampered plan: gpus 3 with tp 2',
    () => ['launch', '--from-plan', at('gpus3.json'), '--out', out('d')],
  ],
  ['tampered plan: -5 W', () => ['launch', '--from-plan', at('watts.json'), '--out', out('e')]],
  ['launch --force .', () => [...LAUNCH, '--out', '.', '--force']],
  ['launch --force ..', () => [...LAUNCH, '--out', '..', '--force']],
  ['launch --power-limit=-5', () => [...LAUNCH, '--power-limit=-5', '--out', out('f')]],
  ['launch --power-limit 0.1', () => [...LAUNCH, '--power-limit', '0.1', '--out', out('g')]],
  ['launch --from-plan /dev/zero', () => ['launch', '--from-plan', '/dev/zero', '--out', out('h')]],
  ['estimate --from deep JSON', () => ['estimate', '--from', at('deep.json')]],
  ['plan a named pipe', () => ['plan', at('pipe.yaml')]],
  ['plan /dev/zero', () => ['plan', '/dev/zero']],
  ['estimate --from cutoff_len 1e12', () => ['estimate', '--from', at('cutoff.yaml')]],
  ['estimate --from cutoff_len .nan', () => ['estimate', '--from', at('nan.yaml')]],
  ['plan: seq past positions', () => ['plan', at('seq.yaml'), '--export', out('i.json')]],
  ['estimate: a missing model', () => ['estimate', '--json']],
  ['estimate: an unknown Hub model offline', () => ['estimate', '--model', 'acme/no-such-model']],
];

describe('hostile inputs write and delete nothing', () => {
  for (const [name, args] of CASES)
    it(name, () => {
      const before = tree();
      const r = run(args());
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at |internal error|call stack/i);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(tree()).toEqual(before);
    });
});
