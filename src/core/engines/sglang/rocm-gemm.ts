/**
 * SGLang's decode linears on ROCm (FrameworkProfile.rocmLibraryGemm; time/rocm-gemm.ts). Without SGLANG_USE_AITER
 * (unset by default, and unset by the launch folder's serve.sh built from source), an unquantized linear runs
 * `F.linear` (UnquantizedLinearMethod.apply: its AITER `tgemm.mm` and CUDA-only cutedsl/gemv branches aside), and a
 * per-channel or per-tensor FP8 linear on gfx942 with torch 2.7+ runs `torch._scaled_mm` (apply_fp8_linear; on AMD
 * GPUs `cutlass_fp8_supported` is False and USE_ROWWISE_TORCH_SCALED_MM holds): both hipBLASLt, at every batch row.
 * No skinny kernel (vLLM's wvSplitK/wvSplitKQ) takes a decode row (the 0.5.23 PyPI wheel,
 * sglang/srt/layers/quantization/unquant.py:572-614 and fp8_utils.py:380-392, 2699-2749). hipBLASLt's call at
 * decode M is the library's, measured the same for either engine: vLLM's figure (engines/vllm/rocm-gemm.ts,
 * ROCm/rocm-libraries#12329).
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';
import { VLLM_ROCM_LIBRARY_GEMM } from '../vllm/rocm-gemm.js';

export const SGLANG_ROCM_LIBRARY_GEMM: NonNullable<FrameworkProfile['rocmLibraryGemm']> = {
  floorSeconds: VLLM_ROCM_LIBRARY_GEMM.floorSeconds, // hipBLASLt per call at decode M (ROCm/rocm-libraries#12329)
  readShare: VLLM_ROCM_LIBRARY_GEMM.readShare,
  // No skinny kernel: every 16-bit and FP8 decode linear is a hipBLASLt call (unquant.py, fp8_utils.py above).
  skinnyRows16: 0,
  skinnyRowsFp8: 0,
};
