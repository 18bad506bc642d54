/**
 * `plan --from` judges the read config's build context (FromMapping.build: axolotl's quantize_moe_experts, its k-bit
 * preparation, transformers' whole-model 4-bit load) as `estimate --from` does, as given and in every fix whose
 * changes leave it standing (estimate.ts buildAfterChange).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/core/engines/registry.js';
import { runPlanFrom } from '../../src/commands/plan-from.js';
import { runEstimateFrom } from '../../src/commands/estimate-from.js';
import { buildAfterChange, type BuildContext } from '../../src/core/estimate.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import {
  PUBLISHED,
  publishedCases,
  runPublished,
  stdoutOfAsync,
} from '../helpers/published-configs.js';

interface Planned {
  fits: boolean;
  deviceBytes: number;
  gpu: { capacityBytes: number };
  fixes: { changes: { label: string }[]; deviceBytes: number; options: EstimateOptions }[];
}

const GiB = 2 ** 30;

async function plan(file: string, gpu: string, extra: Record<string, unknown> = {}) {
  const text = await stdoutOfAsync(() =>
    runPlanFrom(file, undefined, { gpu, json: true, ...extra }),
  );
  return JSON.parse(text) as Planned;
}

async function estimate(file: string, flags: Record<string, unknown>) {
  const text = await stdoutOfAsync(() => runEstimateFrom(file, undefined, flags, true));
  return JSON.parse(text) as { perGpu: { deviceBytes: number }; fits: boolean };
}

afterEach(() => vi.restoreAllMocks());

describe('plan --from: the Qwen3-Next-80B QLoRA example with quantize_moe_experts', () => {
  const file = join(PUBLISHED, 'axolotl/examples/qwen3-next/qwen3-next-80b-a3b-qlora.yaml');

  it('gets fixes that fit one H100, each at estimate --from plus its change', async () => {
    const given = await estimate(file, { gpu: 'h100-sxm' });
    // 81.0 GiB with the experts 4-bit (192 GiB were they bf16): 1.3 GiB over the H100's 79.6 GiB.
    expect(given.fits).toBe(false);
    expect(given.perGpu.deviceBytes / GiB).toBeCloseTo(81.0, 1);
    const p = await plan(file, 'h100-sxm');
    expect(p.deviceBytes).toBe(given.perGpu.deviceBytes);
    expect(p.fixes.length).toBeGreaterThan(0);
    const one = p.fixes.filter((f) => f.options.gpus === 1);
    expect(one.length).toBeGreaterThan(0);
    for (const f of one) expect(f.deviceBytes).toBeLessThanOrEqual(p.gpu.capacityBytes);
    // The single-flag fixes as `estimate --from` runs them with that flag beside the config.
    const flagOf: Record<string, Record<string, unknown>> = {
      'chunked loss': { 'chunked-loss': true },
      'Liger kernels': { liger: true },
      'micro-batch 1': { batch: 1 },
    };
    let checked = 0;
    for (const f of p.fixes) {
      const flag = f.changes.length === 1 ? flagOf[f.changes[0]!.label] : undefined;
      if (!flag) continue;
      const e = await estimate(file, { gpu: 'h100-sxm', ...flag });
      expect(e.fits).toBe(true);
      expect(f.deviceBytes).toBe(e.perGpu.deviceBytes);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('plan --from against estimate --from on every published config that fits', () => {
  // plan --from takes the config, --gpu and --gpus (and --model): the cases that need no other flag.
  const cases = publishedCases()
    .concat(publishedCases('cases-pasted.json'))
    .filter((c) => c.from && Object.keys(c.flags).every((k) => k === 'gpu' || k === 'gpus'));
  it('covers the published --from configs', () => expect(cases.length).toBeGreaterThan(150));
  it('reports the config as given fitting, with the same memory figure', async () => {
    let fitting = 0;
    const refused: string[] = [];
    for (const c of cases) {
      const e = runPublished(c);
      if (e.refusal !== null || e.fits !== true) continue;
      fitting++;
      let p: Planned;
      try {
        p = await plan(join(PUBLISHED, c.from!), String(c.flags.gpu), {
          ...(c.flags.gpus !== undefined ? { gpus: c.flags.gpus } : {}),
          ...(c.model ? { model: c.model } : {}),
        });
      } catch (err) {
        // estimate runs past the config's positions where the engine computes them for any index; plan keeps the
        // config's bound (engines/context.ts assertEngineStructure): the one refusal the table may hold.
        expect((err as Error).message).toMatch(/sequence_len: got \d+; expected at most \d+/);
        refused.push(c.id);
        continue;
      }
      expect({ id: c.id, fits: p.fits }).toEqual({ id: c.id, fits: true });
      expect(p.deviceBytes / GiB).toBeCloseTo(e.deviceGiB!, 9);
    }
    expect(fitting).toBeGreaterThan(50);
    expect(refused).toEqual(['axolotl llava-1.5-7b lora 8k']);
  }, 120_000);
});

describe('buildAfterChange: which fields of a read build a fix keeps', () => {
  const from = {
    framework: 'hf',
    method: 'qlora',
    weights: 'nf4',
    optimizer: 'adamw',
    offload: 'none',
  } as unknown as EstimateOptions;
  const all: Required<BuildContext> = {
    eagerLoss: true,
    lossCompiledAlone: true,
    adamForeach: true,
    gradsFreedEachStep: true,
    kbitFp32Stream: true,
    shiftedLogitsCopy: true,
    kbitNormsCastBack: true,
    linearizedExperts: true,
    quantizedExperts: true,
    kbitFp32Adapters: true,
    adaptersInWeightDtype: true,
    quantizerLoadsWhole: true,
  };
  const keys = (to: Partial<EstimateOptions>, accum = 1) =>
    Object.keys(buildAfterChange(all, from, { ...from, ...to }, accum) ?? {}).sort();

  it('keeps every field where nothing it describes changed', () =>
    expect(keys({ chunkedLoss: true } as Partial<EstimateOptions>)).toEqual(
      Object.keys(all).sort(),
    ));
  it('drops everything on another engine, and nothing is kept from no build', () => {
    expect(keys({ framework: 'unsloth' } as Partial<EstimateOptions>)).toEqual([]);
    expect(buildAfterChange(undefined, from, from, 1)).toBeUndefined();
  });
  it('drops the foreach AdamW step with another optimizer or offload', () => {
    expect(keys({ optimizer: 'adamw-8bit' })).not.toContain('adamForeach');
    expect(keys({ offload: 'optimizer' })).not.toContain('adamForeach');
  });
  it('drops gradients freed each step where the fix accumulates', () =>
    expect(keys({}, 2)).not.toContain('gradsFreedEachStep'));
  it('drops the k-bit preparation, expert quantization and adapter dtype on 16-bit weights', () => {
    const kept = keys({ weights: 'bf16', method: 'lora' });
    expect(kept).toEqual([
      'adamForeach',
      'eagerLoss',
      'gradsFreedEachStep',
      'lossCompiledAlone',
      'shiftedLogitsCopy',
    ]);
  });
  it('keeps the experts quantized on another k-bit type, not the k-bit preparation of another method', () => {
    expect(keys({ doubleQuant: true })).toContain('quantizedExperts');
    const int8Lora = keys({ weights: 'int8', method: 'lora' });
    expect(int8Lora).toContain('quantizedExperts');
    expect(int8Lora).toContain('linearizedExperts');
    expect(int8Lora).not.toContain('kbitNormsCastBack');
  });
});
