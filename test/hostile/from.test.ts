/**
 * Hostile `--from` files through the built CLI: one stderr line naming the file and the key, exit 1
 * (bad input), no stack, nothing on stdout. And the happy path: the file's options echoed, flags win.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-from-hostile-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

function rejects(file: string, ...mentions: RegExp[]): void {
  rejectsNaming(file, file, ...mentions);
}

/** Like rejects, where the line names `named` (a DeepSpeed file the config points to). */
function rejectsNaming(file: string, named: string, ...mentions: RegExp[]): void {
  const r = runCli(['estimate', '--from', file, '--json']);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(named);
  for (const m of mentions) expect(lines[0]).toMatch(m);
}

describe('estimate --from: bad files', () => {
  it('missing file', () => rejects(scratch.dir + '/nope.yaml', /cannot read file \(ENOENT\)/));
  it('a folder', () => rejects(scratch.dir, /is a folder/));
  it('malformed YAML', () =>
    rejects(scratch.file('m.yaml', 'base_model: [unclosed\n'), /invalid YAML/));
  it('malformed JSON', () => rejects(scratch.file('m.json', '{"optim": '), /invalid JSON/));
  it('binary junk', () =>
    rejects(scratch.file('junk.yaml', Buffer.from([0, 1, 2, 255, 254, 10, 58])), /junk\.yaml/));
  it('a list at the top', () =>
    rejects(scratch.file('l.yaml', '- a\n- b\n'), /expected a mapping/));
  it('wrong type', () =>
    rejects(
      scratch.file('w.yml', 'base_model: llama-2-7b\nmicro_batch_size: -3\n'),
      /micro_batch_size: got -3; expected an integer >= 1/,
    ));
  it('bad enum value', () =>
    rejects(
      scratch.file('e.yml', 'base_model: llama-2-7b\nadapter: ia3\n'),
      /adapter: got 'ia3'; expected lora or qlora/,
    ));
  it('unknown key one typo from a memory key', () =>
    rejects(
      scratch.file('k.yml', 'base_model: llama-2-7b\nsequence_length: 4096\n'),
      /sequence_length: unknown axolotl YAML key; did you mean 'sequence_len'\?/,
    ));
  it('missing DeepSpeed file', () =>
    rejects(
      scratch.file(
        'd.yaml',
        'model_name_or_path: llama-2-7b\nfinetuning_type: full\ndeepspeed: ds/missing.json\n',
      ),
      /deepspeed: 'ds\/missing\.json' not found/,
    ));
  it('broken DeepSpeed file names that file', () => {
    const ds = scratch.file('bad-ds.json', '{"zero_optimization": {"stage": 7}}');
    rejectsNaming(
      scratch.file(
        'b.yaml',
        'model_name_or_path: llama-2-7b\nfinetuning_type: full\ndeepspeed: bad-ds.json\n',
      ),
      ds,
      /bad-ds\.json: zero_optimization\.stage: got 7; expected 0, 1, 2 or 3/,
    );
  });
  it('a config that names no model, without --model', () =>
    rejects(scratch.file('z.json', '{"zero_optimization": {"stage": 2}}'), /--model: missing/));
});

describe('estimate --from: the happy path', () => {
  it('echoes the options read, the warnings, and lets flags win', () => {
    const f = scratch.file(
      'ok.yml',
      'base_model: llama-2-7b\nadapter: qlora\nload_in_4bit: true\nlora_r: 64\nsequence_len: 1024\nmicro_batch_size: 2\nlearning_rate: 0.0002\n',
    );
    const r = runCli(['estimate', '--from', f, '--batch', '3', '--gpu', 'rtx-4090', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      options: Record<string, unknown>;
      warnings: string[];
      from: { format: string };
      fits: boolean;
    };
    expect(out.options).toMatchObject({ method: 'qlora', loraRank: 64, seq: 1024, batch: 3 });
    expect(out.from.format).toBe('axolotl');
    expect(out.warnings.join('\n')).toMatch(/learning_rate/);
    expect(typeof out.fits).toBe('boolean');
  });
  it('text output names the file and lists what was not mapped', () => {
    const f = scratch.file('t.yml', 'base_model: llama-2-7b\nnum_epochs: 3\n');
    const r = runCli(['estimate', '--from', f]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^from .*t\.yml \(axolotl\)/);
    expect(r.stdout).toMatch(/num_epochs/);
  });
  it('estimate without --model or --from is a one-line error', () => {
    const r = runCli(['estimate', '--json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vramplan: --model: got nothing; expected .*--from/);
  });
});

describe('plan --from', () => {
  const fft = 'test/fixtures/from/axolotl/examples/llama-3/fft-8b.yaml';
  it('the config as the starting point: needs vs has, then ranked changes that fit', () => {
    const r = runCli([
      'plan',
      '--from',
      fft,
      '--model',
      'llama-3.1-8b',
      '--gpu',
      'rtx-4090',
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      fits: boolean;
      options: { seq: number; optimizer: string };
      fixes: { deviceBytes: number; slowdown: number; quality: string; launch: string }[];
      gpu: { capacityBytes: number };
    };
    expect(out.fits).toBe(false);
    expect(out.options).toMatchObject({ seq: 8192, optimizer: 'paged-adamw-8bit' });
    expect(out.fixes.length).toBeGreaterThan(0);
    for (const f of out.fixes) {
      expect(f.deviceBytes).toBeLessThanOrEqual(out.gpu.capacityBytes);
      expect(f.slowdown).toBeGreaterThan(0);
      expect(['exact', 'near', 'lossy']).toContain(f.quality);
      expect(f.launch).toMatch(
        /^vramplan launch --model llama-3\.1-8b .*--gpu rtx-4090 --grad-accum 8 --out /,
      );
    }
  });
  it('--gpu is required', () => {
    const r = runCli(['plan', '--from', fft, '--model', 'llama-3.1-8b']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vramplan: --gpu: required with plan --from/);
  });
});
