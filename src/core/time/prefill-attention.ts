/** A prefill's attention rate by engine, GPU and cache dtype (time/decode.ts prefillGpuSeconds). */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { GpuRates } from './hardware.js';

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
