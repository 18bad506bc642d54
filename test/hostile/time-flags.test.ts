/**
 * Bad time flags (DESIGN.md "Time") through the built CLI: one stderr line naming the flag, the value and
 * what is allowed; exit 1; no stack trace; nothing on stdout.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli } from '../helpers/run-cli.js';

// scripts/test.mjs builds dist/ before vitest runs.
beforeAll(() => expect(cliBuilt()).toBe(true));

function rejects(args: string[], ...mentions: string[]): void {
  const r = runCli([
    'estimate',
    '--model',
    'llama-2-7b',
    '--gpu',
    'a100-80gb-sxm',
    '--json',
    ...args,
  ]);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  for (const m of mentions) expect(lines[0]).toContain(m);
}

describe('estimate: bad time flags', () => {
  it('--power-limit 2', () =>
    rejects(['--power-limit', '2'], "--power-limit: got '2'", 'from 0.3 to 1'));
  it('--power-limit 0.2 (under 30%)', () =>
    rejects(['--power-limit', '0.2'], "--power-limit: got '0.2'", 'or watts from 120 to 400'));
  it('--power-limit 900W (over the board power)', () =>
    rejects(['--power-limit', '900W'], "--power-limit: got '900W'"));
  it('--power-limit abc', () => rejects(['--power-limit', 'abc'], '--power-limit', 'abc'));
  it('--quant-format ggml (not a supported kernel family; gguf now is, for GGUF weights)', () =>
    rejects(
      ['--method', 'qlora', '--quant-format', 'ggml'],
      "--quant-format: got 'ggml'",
      'bnb, gptq, awq',
    ));
  it('--quant-format on 16-bit weights', () =>
    rejects(['--quant-format', 'bnb'], '--quant-format', '--weights'));
  it('--gpus-per-node 3 with --gpus 8', () =>
    rejects(['--gpus', '8', '--gpus-per-node', '3'], '--gpus-per-node', '--gpus 8'));
  it('--grad-accum 0', () => rejects(['--grad-accum', '0'], "--grad-accum: got '0'", 'from 1'));
  it('--interconnect infiniband', () =>
    rejects(['--interconnect', 'infiniband'], '--interconnect', 'nvlink, pcie'));
  it('--inter-node-gbps -5', () => rejects(['--inter-node-gbps', '-5'], '--inter-node-gbps'));
  const serving = ['--method', 'inference', '--framework', 'vllm', '--batch', '8'];
  it('--request-rate 0', () =>
    rejects(
      [...serving, '--request-rate', '0'],
      "--request-rate: got '0'",
      'requests a second above 0, or inf',
    ));
  it('--request-rate -2', () =>
    rejects([...serving, '--request-rate', '-2'], "--request-rate: got '-2'", 'above 0'));
  it('--request-rate fast', () =>
    rejects([...serving, '--request-rate', 'fast'], "--request-rate: got 'fast'", 'or inf'));
  it('--request-rate on a training run', () =>
    rejects(['--request-rate', '10'], '--request-rate', 'only with --method inference'));
});

describe('estimate: --power-limit takes watts or a fraction', () => {
  it('300W on an A100 SXM (400 W) is the fraction 0.75', () => {
    const run = (limit: string) =>
      JSON.parse(
        runCli([
          'estimate',
          '--model',
          'llama-2-7b',
          '--gpu',
          'a100-80gb-sxm',
          '--json',
          '--power-limit',
          limit,
        ]).stdout,
      ) as { time: { stepSeconds: number } };
    const watts = run('300W').time.stepSeconds;
    expect(run('0.75').time.stepSeconds).toBe(watts);
    expect(run('300').time.stepSeconds).toBe(watts);
  });
});
