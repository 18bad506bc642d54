// vLLM's default MXFP4 MoE on the 10.x family multiplies FP4 experts by BF16 activations (FlashInfer's
// TensorRT-LLM-gen MXFP4 x BF16 call), which no tcgen05 MMA kind does natively: the call converts the weights on the
// SMs and multiplies in BF16, so its arithmetic-bound routed-expert GEMMs run at its measured rate
// (flashinfer-ai/flashinfer#2671), not at the 8-bit tensor rate the `cutlass` family takes (time/fp4-bf16-moe.ts).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS } from '../../src/core/engines/moe-call.js';
import { routedExpertRate, stepExpertFlops } from '../../src/core/time/fp4-bf16-moe.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { gptOss, gptOssOptions } from '../helpers/vllm-gptoss.js';

const o = gptOssOptions;

/** The estimate with vLLM's profile stripped of its MXFP4 x BF16 MoE rate. */
function withoutRate<T>(f: () => T): T {
  const fw = FRAMEWORKS.vllm as { sm100Mxfp4Bf16MoeFlops?: number };
  const save = fw.sm100Mxfp4Bf16MoeFlops;
  try {
    fw.sm100Mxfp4Bf16MoeFlops = undefined;
    return f();
  } finally {
    fw.sm100Mxfp4Bf16MoeFlops = save;
  }
}

describe("vLLM's MXFP4 x BF16 MoE rate on SM100", () => {
  const vllm = FRAMEWORKS.vllm;
  const fast = 4e15;

  it('caps the routed experts at the call rate for MXFP4 experts through FlashInfer on 10.x only', () => {
    expect(FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS).toBe(291.883e12);
    expect(vllm.sm100Mxfp4Bf16MoeFlops).toBe(FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS);
    const at = (w: EstimateOptions['weights'], q: string | null, cc: number): number =>
      routedExpertRate(vllm, w, { q, cc }, fast);
    expect(at('mxfp4', 'cutlass', 10)).toBe(FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS);
    expect(at('mxfp4', 'cutlass', 10.3)).toBe(FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS);
    // Hopper's Marlin, consumer Blackwell, NVFP4 experts (FP4 x FP4 on the cores) and a slower rate stand.
    expect(at('mxfp4', 'marlin', 9)).toBe(fast);
    expect(at('mxfp4', 'cutlass', 12)).toBe(fast);
    expect(at('nvfp4', 'cutlass', 10)).toBe(fast);
    expect(routedExpertRate(vllm, 'mxfp4', { q: 'cutlass', cc: 10 }, 1e12)).toBe(1e12);
    // SGLang's profile names no such rate (its SM100 MXFP4 MoE is not read here).
    expect(routedExpertRate(FRAMEWORKS.sglang, 'mxfp4', { q: 'cutlass', cc: 10 }, fast)).toBe(fast);
  });

  it("counts a decode step's routed-expert FLOPs as each token through its top-k experts", () => {
    const m = modelFacts(gptOss);
    expect(stepExpertFlops(m, 16, 1)).toBe(2 * 16 * 4 * m.expertWeightsPerLayer * m.moeLayers);
    expect(stepExpertFlops(m, 16, 2)).toBe(stepExpertFlops(m, 16, 1) / 2);
  });

  it("slows a B200's gpt-oss-20b prefill and a large decode batch, not a one-token step or an H100's", () => {
    const t = defaultTimeOptions(1);
    const b200 = findGpu('b200');
    const prefill = estimateTime(gptOss, o({ batch: 16 }), b200, t).ttftSeconds!;
    const prefillBefore = withoutRate(
      () => estimateTime(gptOss, o({ batch: 16 }), b200, t).ttftSeconds!,
    );
    expect(prefill).toBeGreaterThan(prefillBefore * 1.5);
    const big = o({ batch: 1024, seq: 1280, promptTokens: 1024 });
    const step = estimateTime(gptOss, big, b200, t).stepSeconds;
    expect(step).toBeGreaterThan(withoutRate(() => estimateTime(gptOss, big, b200, t).stepSeconds));
    const one = estimateTime(gptOss, o({}), b200, t).stepSeconds;
    expect(one).toBe(withoutRate(() => estimateTime(gptOss, o({}), b200, t).stepSeconds));
    const h100 = findGpu('h100-sxm');
    const hopper = estimateTime(gptOss, o({ batch: 16 }), h100, t).ttftSeconds;
    expect(hopper).toBe(
      withoutRate(() => estimateTime(gptOss, o({ batch: 16 }), h100, t).ttftSeconds),
    );
  });
});
