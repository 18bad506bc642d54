// SGLang's block-scaled FP8 linears on SM100 before DeepGEMM's SM100 path: sglang==0.4.6.post2 and 0.4.7 dispatch every
// block-FP8 linear on a B200 to the Triton `w8a8_block_fp8_matmul` (DeepGEMM only where the SM is 90, CUTLASS only by
// environment variable), whose decode cost per call is timed by sgl-project/sglang#5820's 'sglang triton' column
// (FrameworkProfile.blockFp8Linear.sm100Triton, engines/sglang/block-fp8.ts). Later releases keep no SM100 figure.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  blockFp8Gemms,
  blockFp8LinearFigures,
  blockFp8Seconds,
  K_BLOCK,
} from '../../src/core/time/block-fp8.js';
import { estimateTime } from '../../src/core/time/index.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { Arch } from '../../src/core/model/arch.js';
import { DSV3_BLOCK_FP8, DSV3_PER_CHANNEL_FP8, dsv3Fp8Serving } from '../helpers/deepseek-fp8.js';
import { rowEngineVersion } from '../helpers/row-version.js';

const block = DSV3_BLOCK_FP8;
const perChannel = DSV3_PER_CHANNEL_FP8;
const opts = (o: Partial<EstimateOptions> = {}): EstimateOptions =>
  dsv3Fp8Serving({ seq: 1024, ...o });
// The release of sgl-project/sglang#6111's B200 runs (calibration rows sglang6111-*): 0.4.6.post2 with the PR's branch.
const PR6111_BUILD = rowEngineVersion('sglang6111-dsv3-fp8-8xb200-tp8-i512-o512-bs1-default');
const b200 = gpuRates(findGpu('b200'), defaultTimeOptions(8));
const sm100 = (version: string | undefined, batch = 1) =>
  blockFp8Seconds(block, opts({ batch }), FRAMEWORKS.sglang, {
    w8a8: true,
    cc: 10,
    readRate: b200.mem * 0.81,
    flopRate: 2 * b200.gemm16,
    version,
  });

// At batch 1 every call outlasts its bytes and FLOPs, so the extra is the calls' fixed and per-K costs
// (sgl-project/sglang#5820's fit: 9.3 µs + 0.39 µs per 128 of K), the shared expert fused into the routed MoE.
const tritonCalls = () =>
  blockFp8Gemms(block, 8, false, true).reduce(
    (a, g) => a + g.count * (9.3e-6 + 0.39e-6 * Math.ceil(g.k / K_BLOCK)),
    0,
  );

describe("SGLang's Triton block-FP8 linears on SM100 by release", () => {
  it('takes the Triton figures on SM100 for releases before 0.4.8 only', () => {
    const fw = FRAMEWORKS.sglang;
    const t = blockFp8LinearFigures(fw, 10, PR6111_BUILD);
    expect(t?.baseSeconds).toBe(9.3e-6);
    expect(t?.perKBlockSeconds).toBe(0.39e-6);
    expect(blockFp8LinearFigures(fw, 10, '0.4.7')?.baseSeconds).toBe(9.3e-6);
    for (const v of ['0.4.8', '0.4.9.post2', '0.5.6.post1', undefined])
      expect(blockFp8LinearFigures(fw, 10, v)).toBeUndefined();
    // Hopper keeps DeepGEMM's figures whatever the release; SM120 and vLLM take none.
    expect(blockFp8LinearFigures(fw, 9, PR6111_BUILD)).toBe(fw.blockFp8Linear?.hopper);
    expect(blockFp8LinearFigures(fw, 12, PR6111_BUILD)).toBeUndefined();
    expect(blockFp8LinearFigures(FRAMEWORKS.vllm, 10, '0.4.6')).toBeUndefined();
  });

  it("prices DeepSeek-V3's TP-8 linears at batch 1 as the Triton calls beyond their bytes, the shared expert fused", () => {
    // 0.4.6.post2 fuses the shared expert into the routed MoE (determine_n_share_experts_fusion): not a linear here.
    const gemms = blockFp8Gemms(block, 8, false, true);
    expect(gemms.some((g) => g.k === 7168 && g.n === 512)).toBe(false);
    const want = tritonCalls();
    expect(sm100(PR6111_BUILD)).toBeCloseTo(want, 9);
    // About 61 µs a layer: the fused q_a/kv_a (K 7168), q_b (K 1536) and o_proj (K 2048).
    expect(sm100(PR6111_BUILD) / 61).toBeGreaterThan(55e-6);
    expect(sm100('0.5.6.post1')).toBe(0);
    expect(sm100(undefined)).toBe(0);
  });

  it('never adds a negative time and never grows with the batch (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 1, max: 1024 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const x = sm100(PR6111_BUILD, lo);
        const y = sm100(PR6111_BUILD, hi);
        return x >= 0 && y >= 0 && y <= x + 1e-15;
      }),
      { numRuns: 50 },
    );
  });

  it('lengthens the decode step of a block-scaled checkpoint on a B200 under the 0.4.6 build by those calls', () => {
    const step = (arch: Arch, engineVersion: string) =>
      estimateTime(arch, opts(), findGpu('b200'), { ...defaultTimeOptions(8), engineVersion })
        .stepSeconds;
    const gap = (v: string) => step(block, v) - step(perChannel, v);
    const add = tritonCalls();
    expect(gap(PR6111_BUILD)).toBeGreaterThan(add * 0.9);
  });
});
