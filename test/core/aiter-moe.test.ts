// AITER's block-scaled FP8 fused MoE at decode on gfx942 (time/aiter-moe.ts): each routed expert's call walks w13's K
// (the hidden size) and w2's (the expert's width on the GPU) in 128-wide blocks in series, so at a few tokens the call
// takes that chain however few bytes it reads. SGLang runs it with SGLANG_USE_AITER=1, its ROCm image's default
// (FrameworkProfile.blockFp8Linear.rocm.fusedMoePerKBlockSeconds, from AITER's tuned gfx942 fmoe table for GLM-5.1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { aiterMoeSeconds } from '../../src/core/time/aiter-moe.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { DSV3_BLOCK_FP8, dsv3Fp8Serving } from '../helpers/deepseek-fp8.js';

const DSV3 = modelFacts(DSV3_BLOCK_FP8); // block-scaled FP8: hidden 7168, experts 2048 wide, 58 MoE layers
const PER_K = FRAMEWORKS.sglang.blockFp8Linear?.rocm?.fusedMoePerKBlockSeconds ?? NaN;

const opts = dsv3Fp8Serving;

function aiter(
  layerBytes: number,
  o: Partial<EstimateOptions> = {},
  gpu = 'mi300x',
  t: Partial<TimeOptions> = {},
  w8a8 = true,
): number | undefined {
  const r = gpuRates(findGpu(gpu), defaultTimeOptions(8));
  return aiterMoeSeconds(DSV3, opts(o), { ...defaultTimeOptions(8), ...t }, r, {
    w8a8,
    layerBytes,
  });
}

describe("AITER's block-FP8 fused MoE K loop on gfx942", () => {
  it("reproduces AITER's tuned gfx942 table: GLM-5.1's TP-8 shape at one token, and the DeepSeek-V3 EP-8 shape", () => {
    // a8w8_blockscale_tuned_fmoe_glm5_1.csv (cu_num 304): 6144 / 128 + 256 / 128 = 50 blocks in 67.3825 µs.
    expect(50 * PER_K).toBeCloseTo(67.3825e-6, 10);
    // a8w8_blockscale_tuned_fmoe_ds_v3.csv (cu_num 304): model_dim 7168, inter_dim 2048, 9 experts at one token take
    // 99.2 µs; the chain (56 + 16 blocks) and the 9 experts' 396.4 MB at 4.3 TB/s are both within 3% of it.
    const call = Math.max(72 * PER_K, (9 * 3 * 7168 * 2048) / 4.3e12);
    expect(Math.abs(call / 99.21e-6 - 1)).toBeLessThan(0.03);
    // GLM-5.1's EP shape in the same table (inter_dim 2048, 8 experts): 84.3 µs.
    expect(
      Math.abs(Math.max(64 * PER_K, (8 * 3 * 6144 * 2048) / 4.3e12) / 84.31e-6 - 1),
    ).toBeLessThan(0.03);
  });

  it("times DeepSeek-V3 over TP 8 on an MI300X under SGLang: 56 + 2 blocks a layer beyond the layer's bytes", () => {
    const r = gpuRates(findGpu('mi300x'), defaultTimeOptions(8));
    const bytes = 40e6;
    expect(aiter(bytes)).toBeCloseTo(DSV3.moeLayers * (58 * PER_K - bytes / r.mem), 10);
    // Whole experts under expert parallelism: 56 + 16 blocks.
    expect(aiter(bytes, { ep: 8 })).toBeCloseTo(DSV3.moeLayers * (72 * PER_K - bytes / r.mem), 10);
  });

  it('is zero once the bytes outlast the chain, and never negative or rising with the bytes', () => {
    expect(aiter(2e9)).toBe(0);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 3e9, noNaN: true }),
        fc.double({ min: 0, max: 3e9, noNaN: true }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const x = aiter(lo) ?? NaN;
          const y = aiter(hi) ?? NaN;
          return x >= 0 && y >= 0 && y <= x;
        },
      ),
    );
  });

  it('leaves the other paths to the Triton call figure (undefined)', () => {
    expect(aiter(40e6, {}, 'mi300x', { rocmAiter: false })).toBeUndefined(); // SGLANG_USE_AITER=0
    expect(aiter(40e6, { framework: 'vllm' })).toBeUndefined(); // no vLLM figure
    expect(aiter(40e6, {}, 'h100-sxm')).toBeUndefined(); // not a ROCm target
    expect(aiter(40e6, {}, 'mi355x')).toBeUndefined(); // gfx950: not timed
    expect(aiter(40e6, { weights: 'bf16' })).toBeUndefined();
    expect(aiter(40e6, {}, 'mi300x', {}, false)).toBeUndefined(); // not run W8A8
  });
});
