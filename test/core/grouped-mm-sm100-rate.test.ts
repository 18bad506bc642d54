/**
 * torch._grouped_mm's CUTLASS kernel on compute capability 10.x runs one fixed tile config (1-SM, 64 x 128 x 128 at the
 * first SM100 support: pytorch/pytorch aten/src/ATen/native/cuda/GroupMM.cu @06c0cf0), read at 0.377 of the B200's
 * spec from torchao's bf16 forward + backward microbenchmarks (torchao/prototype/moe_training/README.md): the routed
 * experts of an engine whose grouped experts are those calls run at that share on a B200, not at the dense 0.65; Hopper
 * and the per-group fallback keep their rates (time/grouped-mm-rate.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import {
  groupedExpertRate,
  SM100_GROUPED_MM_PEAK_SHARE,
} from '../../src/core/time/grouped-mm-rate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// torchao's README, "Microbenchmarks" (B200): bf16_fwd_bwd_us at 128,000 rows, Llama 4 (N 8192, K 5120) and
// DeepSeek-V3 (N 2048, K 7168) expert shapes over 1-8 groups: 712-863 TFLOPS.
const TORCHAO_B200_BF16_TFLOPS = [747, 816, 822, 854, 863, 757, 712, 753];

const calls = { fwdCalls: 3, bwdCalls: 6, groups: 128, routeP: 8 / 128, epRanks: 1, width: 768 };

describe("torch._grouped_mm's rate on datacenter Blackwell", () => {
  it('reads 0.377 of the spec over the shape factor, inside the benchmarks it comes from', () => {
    expect(SM100_GROUPED_MM_PEAK_SHARE).toBeCloseTo(0.377, 3);
    // The benchmarks' own TFLOPS over the 2,250 spec, before the shape factor, bracket it from below and above.
    const shares = TORCHAO_B200_BF16_TFLOPS.map((t) => t / 2250);
    expect(Math.min(...shares)).toBeLessThan(SM100_GROUPED_MM_PEAK_SHARE);
    expect(Math.max(...shares)).toBeGreaterThan(SM100_GROUPED_MM_PEAK_SHARE);
  });

  it('caps only bf16 grouped calls on 10.x, never above the dense rate (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(8.0, 8.6, 8.9, 9.0, 10.0, 10.3, 12.0),
        fc.boolean(),
        fc.integer({ min: 0, max: 4 }),
        fc.double({ min: 1e14, max: 3e15, noNaN: true }),
        fc.double({ min: 1e14, max: 3e15, noNaN: true }),
        (cc, bf16, fwd, base, peak) => {
          const w = { groupedMm: { ...calls, fwdCalls: fwd }, groupedMmBf16: bf16 };
          const rate = groupedExpertRate(w, { cc, peak16: peak }, base);
          expect(rate).toBeLessThanOrEqual(base);
          const cutlass10x = fwd > 0 && bf16 && Math.floor(cc) === 10;
          expect(rate).toBe(cutlass10x ? Math.min(base, peak * SM100_GROUPED_MM_PEAK_SHARE) : base);
        },
      ),
    );
  });

  it("slows torchtitan's Qwen3-30B-A3B step on a B200, not on an H100", () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const o = optionsFromFlags({
      method: 'full',
      weights: 'fp32',
      compute: 'bf16',
      batch: 2,
      seq: 4096,
      checkpointing: 'full',
      zero: 3,
      gpus: 8,
      framework: 'torchtitan',
      gpu: 'b200',
    });
    const t = defaultTimeOptions(1);
    const w = trainWork(m, o, t);
    expect(w.groupedMm.fwdCalls).toBeGreaterThan(0);
    const b200 = gpuRates(findGpu('b200'), t);
    const capped = groupedExpertRate(w, b200, b200.gemm16);
    expect(capped).toBeCloseTo(b200.peak16 * SM100_GROUPED_MM_PEAK_SHARE, -6);
    expect(capped).toBeLessThan(b200.gemm16 * 0.6);
    // The same work as if the grouped calls were not torch._grouped_mm (no CUTLASS cap): a faster forward and backward.
    const uncapped = { ...w, groupedMm: { ...w.groupedMm, fwdCalls: 0, bwdCalls: 0 } };
    const phases = (rates: typeof b200, work: typeof w) => {
      const p = new Float64Array(TRAIN_PHASES.length);
      trainStep(work, rates, p);
      return p[TRAIN_PHASES.indexOf('forward')]! + p[TRAIN_PHASES.indexOf('backward')]!;
    };
    expect(phases(b200, w)).toBeGreaterThan(phases(b200, uncapped) * 1.1);
    const h100 = gpuRates(findGpu('h100-sxm'), t);
    expect(groupedExpertRate(w, h100, h100.gemm16)).toBe(h100.gemm16);
    // On the H100 only the row tiles' padding (time/grouped-mm-tiles.ts) separates the two: no cap.
    expect(phases(h100, w)).toBeGreaterThan(phases(h100, uncapped));
    expect(phases(h100, w)).toBeLessThan(phases(h100, uncapped) * 1.05);
  });
});
