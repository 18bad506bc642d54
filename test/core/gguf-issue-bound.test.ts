// llama.cpp's quantized mat-vec (mul_mat_vec_q) unpacks and dots each block in registers: on
// cards whose SMs issue too few instructions for their bandwidth it is bound by the SMs' work, not the bytes
// (KernelFamily.issue, GpuRates.smCycles).
import { describe, expect, it } from 'vitest';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true };
const opts = (weights: string, batch = 1): EstimateOptions =>
  ({
    ...defaultOptions('inference'),
    framework: 'llama.cpp',
    weights,
    batch,
    seq: 128,
  }) as EstimateOptions;
const m = modelFacts(resolveModel('llama-2-7b'));
const step = (gpu: string, weights: string, batch = 1, ceiling = true) => {
  const r = gpuRates(findGpu(gpu), t);
  const rates = ceiling ? r : { ...r, smCycles: undefined };
  return decodeStep(m, opts(weights, batch), t, rates, false).stepSeconds;
};

describe('SM cycles a second from the catalog', () => {
  it('FP32 rate over 2 x lanes: 64 lanes an SM on an A100 (8.0), 128 on an H100 and an RTX 4090', () => {
    expect(gpuRates(findGpu('a100-80gb-sxm'), t).smCycles).toBeCloseTo(19.5e12 / 128, -6);
    expect(gpuRates(findGpu('h100-sxm'), t).smCycles).toBeCloseTo(67e12 / 256, -6);
    expect(gpuRates(findGpu('rtx-4090'), t).smCycles).toBeCloseTo(82.6e12 / 256, -6);
  });

  it('none for AMD or Apple GPUs', () => {
    expect(gpuRates(findGpu('mi300x'), t).smCycles).toBeUndefined();
    expect(gpuRates(findGpu('apple-m2-ultra-192gb'), t).smCycles).toBeUndefined();
  });
});

describe('GGUF mat-vec bound by the SMs', () => {
  it('an H100 and an H200 (same SMs and clock) decode Q4_K_M at nearly one speed; 16-bit follows the bandwidth', () => {
    const q4 = step('h100-sxm', 'q4_k_m') / step('h200-sxm', 'q4_k_m');
    expect(q4).toBeGreaterThan(0.97);
    expect(q4).toBeLessThan(1.05);
    expect(step('h100-sxm', 'fp16') / step('h200-sxm', 'fp16')).toBeGreaterThan(1.2);
  });

  it('binds on datacenter cards, not on a GeForce card with more SM cycles per byte of bandwidth', () => {
    expect(step('a100-80gb-sxm', 'q4_k_m')).toBeGreaterThan(
      1.2 * step('a100-80gb-sxm', 'q4_k_m', 1, false),
    );
    expect(step('h100-sxm', 'q4_k_m')).toBeGreaterThan(1.1 * step('h100-sxm', 'q4_k_m', 1, false));
    expect(step('rtx-4090', 'q4_k_m')).toBe(step('rtx-4090', 'q4_k_m', 1, false));
  });

  it("up to 8 batch columns; above, MMQ's tile loads unpack the same blocks (one tile up to 128 columns)", () => {
    expect(step('h100-sxm', 'q4_k_m', 8)).toBeGreaterThan(
      1.1 * step('h100-sxm', 'q4_k_m', 8, false),
    );
    expect(step('h100-sxm', 'q4_k_m', 9)).toBeGreaterThan(
      1.1 * step('h100-sxm', 'q4_k_m', 9, false),
    );
    expect(step('h100-sxm', 'q4_k_m', 9)).toBeGreaterThanOrEqual(step('h100-sxm', 'q4_k_m', 8));
  });
});
