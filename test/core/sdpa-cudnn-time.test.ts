/**
 * SDPA on PyTorch's cuDNN backend (TimeOptions.sdpaCudnn, set by `validate --throughput` for rows whose
 * `sdpa_backend` is 'cudnn'): on compute capability 9.0 the attention runs at GpuRates.attnCudnn, cuDNN's share of
 * the FlashAttention-2 rate in FlashAttention-3's H100 benchmark (arXiv:2407.08608 Figures 5 and 6, head dim 128).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { CUDNN_ATTN_SHARE_SM90 } from '../../src/core/time/hardware.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const flags = HF_LORA_ROW_FLAGS;
// FlashAttention-3 Figure 5 (forward 595 / 370) and Figure 6 (backward 516 / 322), head dim 128, 16k, no causal mask.
const FA3_FIG5_CUDNN_OVER_FA2 = 595 / 370;
const FA3_FIG6_CUDNN_OVER_FA2 = 516 / 322;

describe("SDPA on cuDNN's fused attention (sdpaCudnn)", () => {
  const m = modelFacts(resolveModel('llama-2-7b'));
  const t = defaultTimeOptions(1);

  it("lies between the forward's and the backward's cuDNN / FA2 ratios of the benchmark", () => {
    const lo = Math.min(FA3_FIG5_CUDNN_OVER_FA2, FA3_FIG6_CUDNN_OVER_FA2);
    const hi = Math.max(FA3_FIG5_CUDNN_OVER_FA2, FA3_FIG6_CUDNN_OVER_FA2);
    expect(CUDNN_ATTN_SHARE_SM90).toBeGreaterThanOrEqual(lo);
    expect(CUDNN_ATTN_SHARE_SM90).toBeLessThanOrEqual(hi);
  });

  it('gives compute capability 9.0 a cuDNN rate at that share of its flash rate, and no other card one', () => {
    for (const id of ['h100-sxm', 'h200-sxm']) {
      const r = gpuRates(findGpu(id), t);
      expect(r.attnCudnn).toBeCloseTo(r.attn * CUDNN_ATTN_SHARE_SM90, -6);
    }
    for (const id of ['a100-80gb-sxm', 'b200', 'rtx-4090', 'mi300x']) {
      expect(gpuRates(findGpu(id), t).attnCudnn).toBeUndefined();
    }
  });

  it("times SDPA's attention at the cuDNN rate on an H100: the attention seconds shrink by the share", () => {
    const o = optionsFromFlags({ ...flags, attention: 'sdpa', seq: 16384 });
    const r = gpuRates(findGpu('h100-sxm'), t);
    const fa2 = trainWork(m, o, t);
    const cudnn = trainWork(m, o, { ...t, sdpaCudnn: true });
    expect(cudnn.cudnnAttn).toBe(true);
    expect(fa2.cudnnAttn).toBe(false);
    const attnFlops =
      fa2.microBatches * ((1 + fa2.recompute) * fa2.fwdAttnFlops + fa2.bwdAttnFlops);
    const saved = attnFlops / r.attn - attnFlops / (r.attn * CUDNN_ATTN_SHARE_SM90);
    expect(trainStep(fa2, r) - trainStep(cudnn, r)).toBeCloseTo(saved, 6);
  });

  it('leaves a card without a cuDNN rate, flash and eager attention, and a padding mask as they were', () => {
    const sdpa = optionsFromFlags({ ...flags, attention: 'sdpa' });
    const a100 = gpuRates(findGpu('a100-80gb-sxm'), t);
    expect(trainStep(trainWork(m, sdpa, { ...t, sdpaCudnn: true }), a100)).toBe(
      trainStep(trainWork(m, sdpa, t), a100),
    );
    for (const attention of ['flash', 'eager'] as const) {
      const o = optionsFromFlags({ ...flags, attention });
      expect(trainWork(m, o, { ...t, sdpaCudnn: true })).toEqual(trainWork(m, o, t));
    }
    const masked = { ...t, sdpaPaddingMask: true };
    expect(trainWork(m, sdpa, { ...masked, sdpaCudnn: true })).toEqual(trainWork(m, sdpa, masked));
  });

  it('never makes an H100 step slower, at any sequence and batch (property)', () => {
    const r = gpuRates(findGpu('h100-sxm'), t);
    fc.assert(
      fc.property(
        fc.integer({ min: 7, max: 17 }),
        fc.integer({ min: 1, max: 4 }),
        (log2Seq, batch) => {
          const o = optionsFromFlags({ ...flags, attention: 'sdpa', seq: 2 ** log2Seq, batch });
          const fa2 = trainStep(trainWork(m, o, t), r);
          const cudnn = trainStep(trainWork(m, o, { ...t, sdpaCudnn: true }), r);
          expect(cudnn).toBeLessThanOrEqual(fa2);
        },
      ),
      { numRuns: 25 },
    );
  });
});
