/**
 * FP8 training through torchao (torchao.float8 and torchao.prototype.mx_formats), the library torchtitan,
 * torchtune and Accelerate's AO backend convert a model with: which GPUs run it, which linears it converts,
 * and the memory traffic of its casts. Pure data and arithmetic.
 *
 * Read at pytorch/ao commit 0598012 (torchao/testing/training/roofline_utils.py, the library's own roofline of
 * float8 training) and torchao/float8/float8_linear.py.
 */
import type { Float8Compute } from '../../schema/estimate.js';

/** Least NVIDIA compute capability each FP8 training format needs (float8Refusal; the planner's hardware gate). */
export const FLOAT8_MIN_CC: Record<Float8Compute, number> = { fp8: 8.9, mxfp8: 10 };

/**
 * Why a GPU of compute capability `cc` (or ROCm target) cannot run FP8 training in `compute`, or null. fp8:
 * torch._scaled_mm's FP8 tensor-core kernels, NVIDIA sm_89+ or AMD gfx942+; mxfp8: MX block-scaled GEMMs, NVIDIA
 * sm_100+. `source` is where the engine's own check raises (its runs' float8Check, engines-runs.ts float8CheckSource).
 */
export function float8Refusal(
  compute: Float8Compute,
  cc: string | null | undefined,
  source: string,
): string | null {
  const rocm = /^gfx(\d+)$/.exec(cc ?? '');
  const n = cc && !rocm ? Number(cc) : 0;
  if (compute === 'fp8' && (n >= FLOAT8_MIN_CC.fp8 || (rocm && Number(rocm[1]) >= 942)))
    return null;
  if (compute === 'mxfp8' && n >= FLOAT8_MIN_CC.mxfp8) return null;
  const what =
    compute === 'fp8'
      ? 'FP8 tensor cores (NVIDIA compute capability 8.9+ or AMD gfx942+)'
      : 'MX block-scaled GEMMs (NVIDIA compute capability 10.0+)';
  return `${compute} training needs ${what}; this GPU is ${cc ?? 'not a CUDA or ROCm device'} (${source})`;
}

// FP8 tensor cores run dense FP8 at twice the 16-bit rate on every GPU that has them (H100 SXM 1,979 vs 989
// TFLOPS; B200 4.5 vs 2.25 PFLOPS, its MXFP8 included; L40S 733 vs 362): roofline_utils.py gpu_name_to_specs, and
// the same GEMM efficiency for both (its pct_achievable_gemm_tops is one figure per GPU).
export const FLOAT8_GEMM_SPEEDUP = 2;

/** The cast recipe: torchao.float8's scaling (tensorwise or rowwise) or MXFP8. */
export type CastRecipe = 'tensorwise' | 'rowwise' | 'mxfp8';

/**
 * Bytes moved per element to cast one GEMM operand to 8 bits in forward and backward, as torchao's roofline
 * counts them (roofline_utils.py get_tensor_memory_traffic_ovhd_s, per kernel). `fused`: torch.compile fuses the
 * first read of an activation (input, grad_output) into the op that produced it; the weight is never fused.
 * Tensorwise: amax read (2), then one read in bf16 writing fp8 twice (2 + 1 + 1), the weight cast once per pass
 * (amax 2, 2 + 1 forward, 2 + 1 backward). Rowwise: row-major cast plus a bf16 transpose (2 + 1 + 2), then the
 * column-major cast (2 + 1); the weight adds a transpose (4). MXFP8: two casts (2 + 1 each).
 */
const CAST_BYTES: Record<
  CastRecipe,
  { act: number; actFused: number; weightFwd: number; weightBwd: number }
> = {
  tensorwise: { act: 6, actFused: 4, weightFwd: 5, weightBwd: 3 },
  rowwise: { act: 8, actFused: 6, weightFwd: 3, weightBwd: 7 },
  mxfp8: { act: 6, actFused: 4, weightFwd: 3, weightBwd: 3 },
};

/**
 * Cast traffic of one micro-batch on one rank, forward and backward: the converted linears' inputs (tokens x
 * in features), grad outputs (tokens x out features) and weights. `io` is the converted linears' in + out
 * features on this rank, `weights` their weight elements on this rank.
 */
export function float8CastBytes(
  recipe: CastRecipe,
  fused: boolean,
  tokens: number,
  inFeatures: number,
  outFeatures: number,
  weights: number,
): { fwd: number; bwd: number } {
  const c = CAST_BYTES[recipe];
  const act = fused ? c.actFused : c.act;
  return {
    fwd: tokens * inFeatures * act + weights * c.weightFwd,
    bwd: tokens * outFeatures * act + weights * c.weightBwd,
  };
}
