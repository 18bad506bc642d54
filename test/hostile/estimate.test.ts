/**
 * Hostile input to the built CLI: every bad flag or file ends in exactly one stderr line that names the
 * flag or field, the bad value and what is allowed; a non-zero exit; no stack trace; nothing written.
 */
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, makeUnreadable, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-hostile-');
const tmp = scratch.dir;
afterAll(scratch.remove);

// scripts/test.mjs builds dist/ before vitest runs.
beforeAll(() => expect(cliBuilt()).toBe(true));

const file = scratch.file;

/** One `vramplan: <field>...` line naming every fragment, exit 1, no stack, no stdout, no new files. */
function rejects(args: string[], ...mentions: (string | RegExp)[]): string {
  const before = readdirSync(tmp).sort();
  const r = runCli(['estimate', ...args]);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  const line = lines[0]!;
  for (const m of mentions)
    expect(line).toMatch(
      typeof m === 'string' ? new RegExp(m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : m,
    );
  expect(readdirSync(tmp).sort()).toEqual(before);
  return line;
}

const M = ['--model', 'llama-2-7b', '--json'];

describe('estimate: unknown ids', () => {
  it('unknown model id', () =>
    rejects(
      ['--model', 'no-such-model'],
      "vramplan: --model: got 'no-such-model'; expected",
      'catalog id',
    ));
  it('unknown GPU id', () =>
    rejects([...M, '--gpu', 'gtx-9999'], "--gpu: got 'gtx-9999'", 'h100-sxm'));
  it('unknown framework', () =>
    rejects([...M, '--framework', 'jax'], "--framework: got 'jax'", 'one of hf, torchtune'));
  it('unknown method', () =>
    rejects([...M, '--method', 'dpo'], "--method: got 'dpo'", 'inference, full, lora, qlora'));
  it('unknown optimizer', () =>
    rejects([...M, '--optimizer', 'adam9'], "--optimizer: got 'adam9'", 'adamw-8bit'));
});

describe('estimate: wrong types and ranges', () => {
  it('--batch abc', () =>
    rejects([...M, '--batch', 'abc'], "--batch: got 'abc'", 'an integer from 1 to'));
  it('--sparsity 2', () =>
    rejects([...M, '--sparsity', '2'], "--sparsity: got '2'", 'a number from 0'));
  it('--zero 5', () => rejects([...M, '--zero', '5'], "--zero: got '5'", 'one of 0, 1, 2, 3'));
  it('--gpus 0', () => rejects([...M, '--gpus', '0'], "--gpus: got '0'", 'from 1'));
  it('--batch -1', () => rejects([...M, '--batch=-1'], "--batch: got '-1'", 'from 1'));
  it('--lora-rank 0', () =>
    rejects([...M, '--lora-rank', '0'], "--lora-rank: got '0'", 'from 1 to 65536'));
  it('--seq 1e12', () =>
    rejects([...M, '--seq', '1e12'], "--seq: got '1e12'", 'an integer from 1 to 100000000'));
  it('--seq 2.5', () => rejects([...M, '--seq', '2.5'], "--seq: got '2.5'", 'an integer'));
});

describe('estimate: impossible combinations', () => {
  it('--method full --weights nf4', () =>
    rejects(
      [...M, '--method', 'full', '--weights', 'nf4'],
      "--weights: got 'nf4'",
      'fp32, fp16 or bf16 with --method full',
    ));
  it('--gpus 3 --tp 2', () =>
    rejects([...M, '--gpus', '3', '--tp', '2'], '--gpus: got 3', 'a multiple of --tp x --pp'));
  it('--offload optimizer+params --zero 2', () =>
    rejects(
      [...M, '--offload', 'optimizer+params', '--zero', '2'],
      "--offload: got 'optimizer+params'",
      'unless --zero 3',
    ));
  it('--method inference --optimizer adamw', () =>
    rejects(
      [...M, '--method', 'inference', '--optimizer', 'adamw'],
      "--optimizer: got 'adamw'",
      "'none'",
    ));
});

describe('estimate: hostile model files', () => {
  it('a config.json of an unknown architecture', () =>
    rejects(
      ['--model', file('unknown.json', '{"model_type":"rwkv","hidden_size":64}')],
      "model_type: got 'rwkv'",
      'one of llama',
    ));
  it('a model_type that is an Object.prototype key', () =>
    rejects(
      ['--model', file('proto.json', '{"model_type":"constructor"}')],
      "model_type: got 'constructor'",
      'one of llama',
    ));
  it('a truncated config.json', () =>
    rejects(
      ['--model', file('truncated.json', '{"model_type":"llama","hidden_size":40')],
      'truncated.json: invalid JSON',
    ));
  it('a binary file as config.json is said to be binary', () => {
    const bytes = Buffer.from([
      0x7f, 0x45, 0x4c, 0x46, 0x0a, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x1b, 0x5b,
    ]);
    rejects(['--model', file('binary.json', bytes)], 'binary.json: is a binary file');
  });
  it('control characters of a text config.json stay escaped on one line', () => {
    const bytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x0a, 0x0d, 0x0a, 0xff, 0xfe, 0x1b, 0x5b]);
    rejects(['--model', file('control.json', bytes)], 'control.json: invalid JSON');
  });
  it('a JSON array, a string and null as config.json', () => {
    rejects(['--model', file('array.json', '[1,2]')], '(root): got [1,2]; expected a JSON object');
    rejects(['--model', file('null.json', 'null')], 'expected a JSON object');
  });
  it('absurd sizes in config.json are refused, not estimated as Infinity or run out of memory', () => {
    const base = {
      model_type: 'llama',
      hidden_size: 64,
      num_attention_heads: 4,
      vocab_size: 100,
      intermediate_size: 128,
    };
    rejects(
      ['--model', file('layers.json', JSON.stringify({ ...base, num_hidden_layers: 5_000_000 }))],
      'num_hidden_layers: got 5000000',
      'up to',
    );
    rejects(
      [
        '--model',
        file('hidden.json', JSON.stringify({ ...base, num_hidden_layers: 2, hidden_size: 1e300 })),
      ],
      'hidden_size',
      'up to',
    );
    rejects(
      [
        '--model',
        file(
          'params.json',
          JSON.stringify({
            ...base,
            num_hidden_layers: 2,
            vocab_size: 2_000_000_000,
            hidden_size: 1_000_000,
          }),
        ),
      ],
      '(sizes)',
      'parameters',
    );
  });
  it('GQA and MoE sizes that cannot exist', () => {
    const base = {
      model_type: 'mixtral',
      hidden_size: 64,
      num_attention_heads: 4,
      num_hidden_layers: 2,
      vocab_size: 100,
      intermediate_size: 128,
    };
    rejects(
      [
        '--model',
        file(
          'kv.json',
          JSON.stringify({
            ...base,
            num_key_value_heads: 3,
            num_local_experts: 4,
            num_experts_per_tok: 2,
          }),
        ),
      ],
      'num_key_value_heads: got 3',
      'a divisor',
    );
    rejects(
      [
        '--model',
        file(
          'topk.json',
          JSON.stringify({ ...base, num_local_experts: 2, num_experts_per_tok: 8 }),
        ),
      ],
      'num_experts_per_tok: got 8',
      'at most',
    );
  });
  it('a directory without config.json', () => {
    const dir = join(tmp, 'empty-dir');
    mkdirSync(dir, { recursive: true });
    rejects(['--model', dir], 'empty-dir: no config.json');
  });
  it('an unreadable config.json (skipped when running as root can read it)', (ctx) => {
    const path = file('secret.json', '{"model_type":"llama"}');
    if (!makeUnreadable(path)) {
      ctx.skip();
      return;
    }
    rejects(['--model', path], 'secret.json: cannot read file (EACCES)');
    chmodSync(path, 0o600);
  });
});
