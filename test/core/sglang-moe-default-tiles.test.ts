// SGLang's Triton fused_moe runs a tuned config file where its release ships one for the step's experts, their width
// on the GPU and the card (engines/sglang/fused-moe-configs.ts, read from the PyPI wheels), else get_default_config's
// tiles; above E tokens the 16-bit default keeps 394.2 / 545.5 of a tuned file's rate (sgl-project/sglang#34150),
// priced in a decode step's MoE layers (time/moe-defaults.ts).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  SGLANG_FUSED_MOE_DEFAULTS,
  sglangTuned16,
} from '../../src/core/engines/sglang/fused-moe-configs.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { defaultTileSeconds } from '../../src/core/time/moe-defaults.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

// zai-org/GLM-4.5-Air: 128 routed experts of width 1408, 352 a GPU over TP 4.
const AIR = modelFacts(resolveModel('glm-4.5-air'));

function seconds(gpu: string, o: Partial<EstimateOptions>, t: Partial<TimeOptions> = {}): number {
  const time = { ...defaultTimeOptions(o.tp ?? 4), ...t };
  const opts: EstimateOptions = {
    ...defaultOptions('inference'),
    framework: 'sglang',
    gpus: 4,
    tp: 4,
    batch: 256,
    seq: 2048,
    ...o,
  };
  // One GB of routed-expert bytes a GPU a step.
  return defaultTileSeconds(AIR, opts, time, gpuRates(findGpu(gpu), time, true), 1e9, true);
}

describe("SGLang's shipped 16-bit fused_moe configs", () => {
  it('reads the wheels: E=128,N=352 ships for the H100 from 0.5.14, never for the A100', () => {
    expect(sglangTuned16(128, 352, 'h100-sxm', '0.5.4.post2')).toBe(false);
    expect(sglangTuned16(128, 352, 'h100-sxm', '0.5.14')).toBe(true);
    expect(sglangTuned16(128, 352, 'h100-sxm', undefined)).toBe(true);
    expect(sglangTuned16(128, 352, 'a100-80gb-sxm', '0.5.23')).toBe(false);
    // Mixtral-8x7B over TP 2 (E=8, N=7168) on the H100 ships in every wheel read.
    expect(sglangTuned16(8, 7168, 'h100-sxm', '0.4.6.post1')).toBe(true);
  });

  it('knows nothing of cards it cannot name or releases before the wheels read', () => {
    expect(sglangTuned16(128, 352, 'rtx-4090', '0.5.23')).toBeNull();
    expect(sglangTuned16(64, 1408, 'h100-sxm', '0.2+main-2024-08-13')).toBeNull();
  });
});

describe("SGLang's default 16-bit fused_moe tiles at decode", () => {
  it('adds the default tiles above E tokens where no tuned file ships', () => {
    const share = SGLANG_FUSED_MOE_DEFAULTS.largeReadShare;
    expect(share).toBeCloseTo(0.7226, 3);
    const r = gpuRates(findGpu('a100-80gb-sxm'), defaultTimeOptions(4), true);
    // 1 GB at the A100's modelled bandwidth, times 1 / 0.7226 - 1.
    expect(seconds('a100-80gb-sxm', {})).toBeCloseTo((1e9 / r.mem) * (1 / share - 1), 12);
    expect(seconds('h100-sxm', {}, { engineVersion: '0.5.4.post2' })).toBeGreaterThan(0);
  });

  it('adds nothing at or below E tokens, with a tuned file, under EP or DP attention, or for other runners', () => {
    expect(seconds('a100-80gb-sxm', { batch: 128 })).toBe(0);
    expect(seconds('h100-sxm', {}, { engineVersion: '0.5.14' })).toBe(0);
    expect(seconds('a100-80gb-sxm', { ep: 4 })).toBe(0);
    expect(seconds('a100-80gb-sxm', { dpAttention: true, tp: 1 })).toBe(0);
    expect(seconds('a100-80gb-sxm', { framework: 'vllm' })).toBe(0);
    expect(seconds('rtx-4090', { gpus: 1, tp: 1 })).toBe(0);
  });

  it('grows with the expert bytes and never goes below zero', () => {
    const time = defaultTimeOptions(4);
    const r = gpuRates(findGpu('a100-80gb-sxm'), time, true);
    const o: EstimateOptions = {
      ...defaultOptions('inference'),
      framework: 'sglang',
      gpus: 4,
      tp: 4,
      seq: 2048,
      batch: 1,
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4096 }),
        fc.double({ min: 0, max: 1e11, noNaN: true }),
        (batch, bytes) => {
          const a = defaultTileSeconds(AIR, { ...o, batch }, time, r, bytes, true);
          const b = defaultTileSeconds(AIR, { ...o, batch }, time, r, 2 * bytes, true);
          expect(a).toBeGreaterThanOrEqual(0);
          expect(b).toBeCloseTo(2 * a, 9);
        },
      ),
      { numRuns: 50 },
    );
  });
});
