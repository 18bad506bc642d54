/**
 * The routed experts' GEMM rate where the engine runs MXFP4 experts with 16-bit activations on compute capability
 * 10.x (FrameworkProfile.sm100Mxfp4Bf16MoeFlops: vLLM's default FlashInfer TensorRT-LLM-gen MXFP4 x BF16 MoE). The
 * `cutlass` family's rate (decode.ts gemmRate: the 8-bit tensor rate) holds for calls that multiply in FP8 or FP4;
 * this call converts its FP4 tiles to BF16 on the SMs first, so its arithmetic-bound GEMMs (a prefill's, a large
 * decode batch's) run at its own measured rate. Its bytes and its fixed latency at a few tokens are priced as before
 * (decode.ts, moe-call.ts).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { isSm100 } from '../compute-capability.js';
import { blockFp8GemmRate } from './block-fp8.js';
import type { ModelFacts } from './model-facts.js';

/** FLOP/s of the routed-expert GEMMs: `rate`, or the engine's MXFP4 x BF16 MoE rate where that call runs. */
export function routedExpertRate(
  fw: FrameworkProfile,
  weights: EstimateOptions['weights'] | undefined,
  w: { q: string | null; cc: number },
  rate: number,
): number {
  const f = fw.sm100Mxfp4Bf16MoeFlops;
  return f !== undefined && weights === 'mxfp4' && w.q === 'cutlass' && isSm100(w.cc)
    ? Math.min(rate, f)
    : rate;
}

/**
 * FLOP/s of a prefill's routed-expert GEMMs: a block-scaled checkpoint's capped rate (blockFp8GemmRate), then the
 * engine's MXFP4 x BF16 MoE rate; `rate` for a dense model, which has none to price.
 */
export function prefillExpertGemmRate(
  m: { experts: number; arch: Arch },
  o: EstimateOptions,
  fw: FrameworkProfile,
  w: Parameters<typeof blockFp8GemmRate>[3],
  rate: number,
): number {
  if (m.experts <= 1) return rate;
  return routedExpertRate(fw, o.weights, w, blockFp8GemmRate(m.arch, o, fw, w, rate, 'experts'));
}

/** FLOPs per GPU of a prefill's routed experts: each token through its topK experts' linears (0 for dense). */
export function prefillExpertFlops(m: ModelFacts, o: EstimateOptions, rows: number): number {
  if (m.experts <= 1 || m.moeLayers === 0) return 0;
  return (2 * rows * m.topK * m.expertWeightsPerLayer * m.moeLayers) / o.tp;
}

/** FLOPs per GPU of a decode step's routed experts: each of `batch` tokens through its topK experts' linears. */
export function stepExpertFlops(m: ModelFacts, batch: number, tp: number): number {
  if (m.experts <= 1 || m.moeLayers === 0) return 0;
  return (2 * batch * m.topK * m.expertWeightsPerLayer * m.moeLayers) / tp;
}
