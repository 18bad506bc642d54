/**
 * vLLM's prefill attention on ROCm (FrameworkProfile.rocmPrefillAttention; time/decode.ts prefillGpuSeconds). Without
 * AITER (`VLLM_ROCM_USE_AITER` off unless set, vllm/envs.py) vLLM's ROCm attention backends run Triton kernels over
 * the paged cache for a prompt's tokens: ROCM_ATTN's `chunked_prefill_paged_decode`, whose prefill half is the Triton
 * prefix-prefill kernel, ranked first for a non-MLA model since vllm-project/vllm#36702 (March 2026; the default from
 * v0.19: vllm/platforms/rocm.py `_get_backend_priorities`, ROCM_ATTN, then ROCM_AITER_FA where AITER's MHA is on,
 * ROCM_AITER_UNIFIED_ATTN, then TRITON_ATTN; ROCM_ATTN takes any block size a multiple of 16 and an fp8 cache), or
 * TRITON_ATTN's unified attention before it.
 * Neither is a CK or assembly flash-attention kernel, and neither reaches the GEMMs' rate the model gives a prefill's
 * attention elsewhere.
 *
 * The rate: AITER's benchmark of the Triton unified-attention kernel (the kernel ROCM_AITER_UNIFIED_ATTN runs, forked
 * from vLLM's TRITON_ATTN one) on an MI350, one causal prefill of 32,768 tokens, 64 query and 16 KV heads of 128:
 * 35.41 ms, 490.3 TFLOPS counted as the causal half (ROCm/aiter#1336; bench_unified_attention.py counts
 * (sq x sk - (sq^2 - sq) / 2) x heads x 4 x 128, the time model's 2 x tokens^2 x width), 0.21 of the MI350X's
 * 2,306.9 TFLOPS 16-bit dense peak (256 CUs x 2.2 GHz x 4,096, AMD's MI350X page). No figure of the prefix-prefill
 * kernel on gfx942 or gfx950 was found: the unified kernel's share stands for both, on every AMD GPU.
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

export const VLLM_ROCM_PREFILL_ATTENTION: NonNullable<FrameworkProfile['rocmPrefillAttention']> = {
  peakShare: 490.3 / 2306.9, // Triton unified attention, 32K causal prefill on an MI350, ROCm/aiter#1336
};
