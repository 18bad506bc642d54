/**
 * A launch folder read back with `estimate --from` gives the figures the plan promised (vramplan-plan.json's
 * estimate): a serving folder's prompt length comes from the plan beside serve.sh, and a capped plan is
 * timed at the whole watts power-limit.sh writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir } from '../helpers/run-cli.js';

const tmp = scratchDir('vramplan-read-back-');
afterAll(() => tmp.remove());

interface Planned {
  flags: Record<string, unknown>;
  powerLimitW: number | null;
  estimate: { ttftSeconds: number | null; stepSeconds: number | null };
}
interface Estimated {
  time: { ttftSeconds?: number; stepSeconds: number };
  warnings: string[];
}

function launch(name: string, args: readonly string[]): { dir: string; plan: Planned } {
  const dir = join(tmp.dir, name);
  const r = runCli(['launch', ...args, '--out', dir]);
  expect(r.status, r.stderr).toBe(0);
  return {
    dir,
    plan: JSON.parse(readFileSync(join(dir, 'vramplan-plan.json'), 'utf8')) as Planned,
  };
}

function readBack(from: string, flags: readonly string[]): Estimated {
  const r = runCli(['estimate', '--from', from, ...flags, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Estimated;
}

describe('serving folder: the prompt length of the plan beside serve.sh', () => {
  // Llama-3.1-8B AWQ int4 on an RTX 4090: 1,024-token prompts in a 4,096 context, 8 sequences at once.
  const { dir, plan } = launch('awq-4090', [
    '--model',
    'llama-3.1-8b',
    '--method',
    'inference',
    '--weights',
    'int4',
    '--gpu',
    'rtx-4090',
    '--seq',
    '4096',
    '--prompt-tokens',
    '1024',
    '--batch',
    '8',
    '--framework',
    'vllm',
  ]);
  const gpu = ['--gpu', 'rtx-4090'];

  it('the folder and its serve.sh read back with the plan time to first token, and say where the prompt came from', () => {
    expect(plan.flags['prompt-tokens']).toBe(1024);
    expect(readFileSync(join(dir, 'serve.sh'), 'utf8')).not.toMatch(/1024/);
    for (const from of [dir, join(dir, 'serve.sh')]) {
      const e = readBack(from, gpu);
      expect(e.time.ttftSeconds).toBe(plan.estimate.ttftSeconds);
      expect(e.warnings.find((w) => w.startsWith("prompt tokens: 1,024, the plan's"))).toContain(
        'vramplan-plan.json',
      );
    }
  });

  it('--prompt-tokens beside --from wins over the plan; serve.sh alone takes the default prompt', () => {
    const alone = tmp.folder('awq-4090-serve-only', {
      'serve.sh': readFileSync(join(dir, 'serve.sh'), 'utf8'),
    });
    const bare = readBack(join(alone, 'serve.sh'), gpu);
    expect(bare.time.ttftSeconds).not.toBe(plan.estimate.ttftSeconds);
    expect(bare.warnings.some((w) => w.startsWith('prompt tokens:'))).toBe(false);
    const given = ['--prompt-tokens', '2048'];
    const e = readBack(dir, [...gpu, ...given]);
    expect(e.time.ttftSeconds).toBeGreaterThan(plan.estimate.ttftSeconds!);
    expect(e.time.ttftSeconds).toBe(
      readBack(join(alone, 'serve.sh'), [...gpu, ...given]).time.ttftSeconds,
    );
  });
});

describe('a capped plan: timed at the whole watts power-limit.sh writes', () => {
  // DPO on Llama-3.1-8B, one RTX 4090 (450 W board): plan 1 runs at the 0.85 level, 382.5 W before rounding.
  const { dir, plan } = launch('dpo', ['scenarios/dpo-llama-3.1-8b.yaml', '--plan', '1']);

  it('power-limit.sh, vramplan-plan.json and the read-back agree on the cap and the step time', () => {
    const written = /-pl (\S+)/.exec(readFileSync(join(dir, 'power-limit.sh'), 'utf8'))?.[1];
    expect(written).toBe(String(plan.powerLimitW));
    expect(Number.isInteger(plan.powerLimitW)).toBe(true);
    const e = readBack(dir, ['--gpu', 'rtx-4090']);
    expect(e.time.stepSeconds).toBe(plan.estimate.stepSeconds);
  });

  it("without --gpu the folder reads back on the plan's GPU (its watts need one), and says so", () => {
    const e = readBack(dir, []);
    expect(e.time.stepSeconds).toBe(plan.estimate.stepSeconds);
    expect(e.warnings.filter((w) => w.startsWith("GPU: rtx-4090, the plan's"))).toHaveLength(1);
  });

  it("the ranked plan's own time is the one its folder promises", () => {
    const r = runCli(['plan', 'scenarios/dpo-llama-3.1-8b.yaml', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const first = (
      JSON.parse(r.stdout) as {
        plans: {
          hardware: { powerLimitW: number; powerLimitFraction: number };
          time: { stepSeconds: number };
        }[];
      }
    ).plans[0]!;
    expect(first.hardware.powerLimitW).toBe(plan.powerLimitW);
    expect(first.hardware.powerLimitFraction * 450).toBeCloseTo(first.hardware.powerLimitW, 9);
    expect(first.time.stepSeconds).toBe(plan.estimate.stepSeconds);
  });
});

describe('an AMD Instinct cap: amd-smi set -o in power-limit.sh, read back as the plan time', () => {
  // LoRA Llama-3.1-8B on one MI300X (750 W board) capped at 600 W.
  const { dir, plan } = launch('mi300x-cap', [
    '--model',
    'llama-3.1-8b',
    '--method',
    'lora',
    '--gpu',
    'mi300x',
    '--seq',
    '2048',
    '--batch',
    '1',
    '--power-limit',
    '600W',
  ]);

  it('power-limit.sh caps with amd-smi and the folder reads back at that cap', () => {
    const script = readFileSync(join(dir, 'power-limit.sh'), 'utf8');
    expect(script).toMatch(/^sudo amd-smi set -g 0 -o 600$/m);
    expect(plan.powerLimitW).toBe(600);
    const e = readBack(dir, ['--gpu', 'mi300x']);
    expect(e.time.stepSeconds).toBe(plan.estimate.stepSeconds);
    const full = readBack(dir, ['--gpu', 'mi300x', '--power-limit', '1']);
    expect(full.time.stepSeconds).toBeLessThan(plan.estimate.stepSeconds!);
  });
});
