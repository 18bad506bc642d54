// An MXFP4 MoE's routed experts on an AMD target without FP4 matrix cores (gfx942): the weight-only kernel unpacks
// each FP4 tile in the CUs' registers and is bound by their work, not the bytes (KernelFamily.rocmMoeIssue,
// GpuRates.cuCycles).
import { describe, expect, it } from 'vitest';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { rocmMoeIdleFactor } from '../../src/core/time/rocm-moe-programs.js';
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

describe('programs of the MXFP4 MoE kernel on gfx942: one a routed expert and 256-column tile', () => {
  const m20 = modelFacts(resolveModel('gpt-oss-20b'));

  it('the catalog gives an MI300X 304 CUs', () => {
    expect(gpuRates(findGpu('mi300x'), t).cus).toBe(304);
  });

  it('four routed experts leave most CUs idle: gate_up 4 x 23 = 92 programs, down 4 x 12 = 48', () => {
    // gpt-oss-20b: hidden 2880, expert width 2880. gate_up 2 x 2880 x 2880 (2/3 of an expert's elements), N 5760:
    // 23 tiles; down 2880 x 2880 (1/3), N 2880: 12 tiles. 2/3 x 304/92 + 1/3 x 304/48 = 2.203 + 2.111 = 4.314.
    expect(rocmMoeIdleFactor(m20, 1, 304, 256, 4)).toBeCloseTo(
      (2 / 3) * (304 / 92) + (1 / 3) * (304 / 48),
      6,
    );
  });

  it('every CU busy once the programs outnumber them, and no factor where the CU count is unknown', () => {
    // 32 experts: gate_up 736 programs, down 384, both above 304.
    expect(rocmMoeIdleFactor(m20, 1, 304, 256, 32)).toBe(1);
    expect(rocmMoeIdleFactor(m20, 1, undefined, 256, 4)).toBe(1);
  });

  it("one request's step on an MI300X takes the 92 and 48 programs' time, not all 304 CUs'", () => {
    const r = gpuRates(findGpu('mi300x'), t);
    const one = (rates: typeof r) => decodeStep(m20, opts('mxfp4', 1), t, rates, false).stepSeconds;
    // 24 layers x 4 experts x 28.3M elements (3 x 3072 x 3072: the shape vLLM pads them to on ROCm,
    // engines/vllm/mxfp4-pad.ts) x 0.53125 B = 1.44 GB: at 304 CUs x 2.1 GHz x 2.5 B 0.90 ms, idle CUs counted
    // 4.314 x that, 3.90 ms: the step grows by about 3.0 ms.
    const gap = one(r) - one({ ...r, cus: undefined });
    expect(gap).toBeGreaterThan(2.7e-3);
    expect(gap).toBeLessThan(3.3e-3);
  });
});
