// An MXFP4 MoE's routed experts on an AMD target without FP4 matrix cores (gfx942): the weight-only kernel unpacks
// each FP4 tile in the CUs' registers and is bound by their work, not the bytes (KernelFamily.rocmMoeIssue,
// GpuRates.cuCycles).
import { describe, expect, it } from 'vitest';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true };
const opts = (weights: string, batch: number): EstimateOptions =>
  ({
    ...defaultOptions('inference'),
    framework: 'vllm',
    weights,
    batch,
    seq: 2048,
  }) as EstimateOptions;
const m = modelFacts(resolveModel('gpt-oss-120b'));
const step = (gpu: string, weights: string, batch: number, ceiling = true) => {
  const r = gpuRates(findGpu(gpu), t);
  const rates = ceiling ? r : { ...r, cuCycles: undefined };
  return decodeStep(m, opts(weights, batch), t, rates, false).stepSeconds;
};

describe('CU cycles a second from the catalog', () => {
  it('FP32 rate over 256: an MI300X is 304 CUs at 2.1 GHz, with its gfx target', () => {
    const r = gpuRates(findGpu('mi300x'), t);
    expect(r.cuCycles).toBeCloseTo(304 * 2.1e9, -9);
    expect(r.gfx).toBe('gfx942');
  });

  it('none for NVIDIA GPUs', () => {
    expect(gpuRates(findGpu('h100-sxm'), t).cuCycles).toBeUndefined();
  });
});

describe('MXFP4 experts on gfx942 bound by the CUs', () => {
  it('binds at 64 in flight on an MI300X: the experts at 2.5 B a CU cycle, not the bandwidth', () => {
    expect(step('mi300x', 'mxfp4', 64)).toBeGreaterThan(1.5 * step('mi300x', 'mxfp4', 64, false));
  });

  it('only for MXFP4 on gfx942: not on gfx950 (MI355X), not for a 16-bit model', () => {
    expect(step('mi355x', 'mxfp4', 64)).toBe(step('mi355x', 'mxfp4', 64, false));
    expect(step('mi300x', 'bf16', 64)).toBe(step('mi300x', 'bf16', 64, false));
  });
});
