/** A prefill's attention rate by engine, GPU and cache dtype (time/decode.ts prefillGpuSeconds). */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/**
 * The rate (FLOP/s) of a prefill's attention where the engine runs a kernel of its own for it, or 0 (the prefill's
 * GEMM rate): with an fp8 KV cache on the GPUs FrameworkProfile.fp8KvPrefillAttention names, a share of the 8-bit
 * peak; on an AMD GPU, the share of the 16-bit peak its ROCm Triton attention reaches (rocmPrefillAttention); beside
 * W8A8 linears (`q` cutlass) with a 16-bit cache, the 16-bit GEMM rate, not the linears' 8-bit one.
 */
export function prefillAttentionRate(
  o: EstimateOptions,
  r: GpuRates,
  q: QuantFormat | null,
): number {
  const fw = FRAMEWORKS[o.framework];
  const fa = fw.fp8KvPrefillAttention;
  if (fa !== undefined && o.kvCacheDtype === 'fp8' && r.cc === fa.cc)
    return fa.peakShare * 2 * r.peak16;
  const ra = fw.rocmPrefillAttention;
  if (ra !== undefined && r.rocm) return ra.peakShare * r.peak16;
  // W8A8 linears beside a 16-bit cache: FlashAttention multiplies the 16-bit query and cache at the 16-bit rate.
  return q === 'cutlass' && o.kvCacheDtype !== 'fp8' ? r.gemm16 : 0;
}

/**
 * A prefill's attention FLOPs per GPU: `seqs` prompts of `tokens` tokens, each query attending the keys at or before it
 * (tokens^2 / 2 pairs a layer, QK^T and PV at 2 x 2 x head width FLOPs a pair). Where the engine's prefill kernel skips
 * the key tiles left of a sliding-window layer's window (FrameworkProfile.prefillWindowSkip), that layer's query i
 * attends min(i, w) keys: tokens x w - w^2 / 2 pairs once the prompt passes the window, (tokens - w)^2 / 2 fewer.
 */
export function prefillAttentionFlops(
  m: ModelFacts,
  o: EstimateOptions,
  r: Pick<GpuRates, 'cc' | 'rocm'>,
  tokens: number,
  seqs: number,
): number {
  const causal = (2 * m.attnLayers * tokens * tokens * m.attnWidth * seqs) / o.tp;
  const skip = FRAMEWORKS[o.framework].prefillWindowSkip;
  if (skip === undefined || r.rocm || !skip(r.cc)) return causal;
  // Squared tokens past the window, summed over the sliding-window layers.
  let beyond = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent || g.slidingWindow === null) continue;
    beyond += g.count * Math.max(0, tokens - g.slidingWindow) ** 2;
  }
  return causal - (2 * beyond * m.attnWidth * seqs) / o.tp;
}
