// The built CLI: launch writes a folder atomically and refuses an existing one; explain prints JSON.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

const root = mkdtempSync(join(tmpdir(), 'vramplan-launch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const QLORA = [
  'launch',
  '--model',
  'llama-2-7b',
  '--method',
  'qlora',
  '--gpu',
  'rtx-4090',
  '--checkpointing',
  'full',
  '--power-limit',
  '300',
];

describe('vramplan launch', () => {
  it('writes the README and engine files into a new folder, with no temp folder left', () => {
    const out = join(root, 'a');
    const r = run(...QLORA, '--out', out);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual([
      '.vramplan-launch',
      'README.md',
      'accelerate.yaml',
      'axolotl.yaml',
      'hf-args.json',
      'launch.sh',
      'power-limit.sh',
      'requirements-axolotl.txt',
      'requirements.txt',
      'train.py',
      'vramplan-plan.json',
      'vramplan_probe.py',
    ]);
    expect(
      JSON.parse(readFileSync(join(out, 'hf-args.json'), 'utf8')).bnb_config.load_in_4bit,
    ).toBe(true);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain(
      '# Launch plan: llama-2-7b (qlora)',
    );
    expect(readdirSync(root).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('times the README as estimate does: the --grad-accum and --power-limit given', () => {
    const out = join(root, 'timed');
    expect(run(...QLORA, '--grad-accum', '8', '--out', out).code).toBe(0);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    const step = /About ([\d.]+) s per optimizer step \(8 micro-batches\)/.exec(readme);
    expect(step, readme).not.toBeNull();
    const est = JSON.parse(
      run(
        'estimate',
        ...QLORA.slice(1, 9),
        '--grad-accum',
        '8',
        '--power-limit',
        String(300 / 450),
        '--json',
      ).out,
    );
    expect(Number(step![1])).toBeCloseTo(est.time.stepSeconds, 1);
  });

  it('refuses an existing folder without --force and leaves it untouched', () => {
    const out = join(root, 'b');
    mkdirSync(out);
    writeFileSync(join(out, 'mine.txt'), 'keep');
    const r = run(...QLORA, '--out', out);
    expect(r.code).toBe(1);
    expect(r.err).toContain('already exists');
    expect(readdirSync(out)).toEqual(['mine.txt']);
  });

  it('--force refuses a folder launch did not write, and leaves it untouched', () => {
    const out = join(root, 'b');
    const r = run(...QLORA, '--out', out, '--force');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not written by 'vramplan launch'/);
    expect(readdirSync(out)).toEqual(['mine.txt']);
  });

  it('--force keeps a file the user added to a folder launch wrote; --keep-old moves it aside', () => {
    const out = join(root, 'b2');
    expect(run(...QLORA, '--out', out).code).toBe(0);
    writeFileSync(join(out, 'mine.txt'), 'scratch');
    const r = run(...QLORA, '--out', out, '--force');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/did not write \(mine\.txt\)/);
    expect(readFileSync(join(out, 'mine.txt'), 'utf8')).toBe('scratch');
    const kept = run(...QLORA, '--out', out, '--keep-old');
    expect(kept.code).toBe(0);
    expect(existsSync(join(out, 'mine.txt'))).toBe(false);
    expect(existsSync(join(out, 'README.md'))).toBe(true);
  });

  it('writes nothing when an input is bad', () => {
    const out = join(root, 'c');
    const r = run(
      'launch',
      '--model',
      'llama-2-7b',
      '--gpu',
      'rtx-4090',
      '--grad-accum',
      '0',
      '--out',
      out,
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('--grad-accum');
    expect(existsSync(out)).toBe(false);
  });
});

describe('vramplan explain', () => {
  it('prints the explanation as JSON', () => {
    const r = run('explain', '--model', 'llama-2-13b', '--gpu', 'rtx-4090', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.fits).toBe(false);
    expect(j.overflow[0].component).toBe('optimizer');
    expect(j.fixes.length).toBeGreaterThan(0);
  });

  it('requires --gpu', () => {
    const r = run('explain', '--model', 'llama-2-13b');
    expect(r.code).toBe(1);
    expect(r.err).toContain('--gpu');
  });
});

describe('vramplan launch <scenario> --plan N and --from-plan', () => {
  it('writes the folder of a later plan as `plan` ranks it, for the plan engine', () => {
    const plans = JSON.parse(run('plan', 'scenarios/default.yaml', '--json', '--top', '30').out);
    // The first plan after the best on a Hugging Face engine (its folder holds hf-args.json).
    const k = plans.plans.findIndex(
      (p: { choices: { engine: string } }, i: number) =>
        i > 0 && p.choices.engine.startsWith('hf-'),
    );
    expect(k).toBeGreaterThan(0);
    const second = plans.plans[k];
    const out = join(root, 'plan2');
    const r = run('launch', 'scenarios/default.yaml', '--plan', String(k + 1), '--out', out);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`for ${second.choices.engine} to`);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(`Engine: **${second.choices.engine}**`);
    const args = JSON.parse(readFileSync(join(out, 'hf-args.json'), 'utf8'));
    expect(args.sft_config.gradient_accumulation_steps).toBe(second.choices.gradAccum);
    expect(args.sft_config.per_device_train_batch_size).toBe(second.choices.microBatch);
  });

  it('launches a plan from an exported plans.json the same way', () => {
    const json = join(root, 'plans.json');
    expect(run('plan', 'scenarios/default.yaml', '--export', json).code).toBe(0);
    const a = join(root, 'from-json');
    const b = join(root, 'from-scenario');
    expect(run('launch', '--from-plan', json, '--plan', '1', '--out', a).code).toBe(0);
    expect(run('launch', 'scenarios/default.yaml', '--out', b).code).toBe(0);
    expect(readdirSync(a).sort()).toEqual(readdirSync(b).sort());
    for (const f of readdirSync(a))
      expect(readFileSync(join(a, f), 'utf8')).toBe(readFileSync(join(b, f), 'utf8'));
  });

  for (const bad of ['0', '999', 'two'])
    it(`--plan ${bad}: one line naming the allowed range, no folder`, () => {
      const out = join(root, `bad-${bad}`);
      const r = run('launch', 'scenarios/default.yaml', '--plan', bad, '--out', out);
      expect(r.code).not.toBe(0);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(/--plan: got .*; expected a plan number from 1/);
      expect(existsSync(out)).toBe(false);
    });

  it('--from-plan with a file that is not an exported plan is a one-line error', () => {
    const f = join(root, 'not-plans.json');
    writeFileSync(f, '{"plans": 3}');
    const r = run('launch', '--from-plan', f, '--out', join(root, 'x'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--from-plan: .*not-plans\.json: scenario/);
  });
});
