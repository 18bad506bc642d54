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

/**
 * vLLM's decode attention on ROCm under ROCM_ATTN (FrameworkProfile.rocmPagedDecode; time/decode-attention.ts), the
 * first backend `_get_backend_priorities` lists for a non-MLA model whether or not VLLM_ROCM_USE_AITER is set (AITER's
 * backends rank after it; vllm-project/vllm@001eda31 vllm/platforms/rocm.py), and valid at any block size a multiple
 * of 16 (vllm-project/vllm#35923). A
 * decode token runs AMD's HIP paged-attention kernel (`ops.paged_attention_rocm`, split over 256-token partitions)
 * only where `use_rocm_custom_paged_attention` allows it: on gfx9 (MI200/MI300/MI350) a 16-bit query, head size 64
 * or 128, block size 16 or 32, 1-16 query heads a KV head, no sliding window and no sinks (vllm-project/vllm@001eda31
 * vllm/platforms/rocm.py). Otherwise `chunked_prefill_paged_decode` launches the Triton `kernel_paged_attention_2d`
 * over a grid of (sequences, KV heads), one program walking its sequence's whole context one tile of
 * min(block size, 128) tokens at a time (vllm-project/vllm@01551e98 vllm/v1/attention/ops/chunked_prefill_paged_decode.py,
 * MAX_TRITON_BLOCK_SIZE). Sliding windows and sinks are not modelled here: the builds that ran such models on an AMD
 * GPU ranked TRITON_ATTN first (ROCM_ATTN leads from vllm-project/vllm#36702), whose unified kernel splits the context
 * while its grid is small; v0.10.1's walks it unsplit beyond (time/piecewise.ts unsplitTritonLayers, priced for the
 * piecewise-graph builds of that version).
 */
export const VLLM_ROCM_PAGED_DECODE: NonNullable<FrameworkProfile['rocmPagedDecode']> = {
  blockSizes: [16, 32], // use_rocm_custom_paged_attention, vllm-project/vllm@001eda31 vllm/platforms/rocm.py
  headSizes: [64, 128], // use_rocm_custom_paged_attention, vllm-project/vllm@001eda31 vllm/platforms/rocm.py
  maxQueriesPerKv: 16, // gqa_ratio <= 16, vllm-project/vllm@001eda31 vllm/platforms/rocm.py
  defaultBlockSize: 16, // CacheConfig.block_size's default (engines/vllm/memory.ts VLLM_BLOCK_TOKENS)
  maxTileTokens: 128, // MAX_TRITON_BLOCK_SIZE, vllm-project/vllm@01551e98 chunked_prefill_paged_decode.py
};

/**
 * vLLM's own ROCm decode-attention kernels' sustained KV read (FrameworkProfile.rocmPagedDecode.peakShares;
 * time/decode-attention.ts kvReadRate), as a share of the card's peak bandwidth, on the gfx targets the figures are of (CDNA 3 and CDNA 4):
 *
 * - The split-context HIP kernel (`paged_attention_ll4mi_QKV_mfma16_kernel` and its reduce, csrc/rocm/attention.cu; V0's
 *   ROCm backend and ROCM_ATTN run it where `use_rocm_custom_paged_attention` allows): AITER's copy of it
 *   (`aiter.paged_attention_rocm`, the same ll4mi kernel pair) on an MI355X, CUDA-graph timed, 64 sequences, 32 query
 *   and 8 KV heads of 128, 16-token blocks, bf16: 0.055, 0.076 and 0.128 ms at 1024, 1536 and 2048 tokens
 *   (AMD-AGI/AgentKernelArena@3cdf60d5 tasks/image_kernel/mi355x_vllm_hip_paged_attention_decode/README.md). The
 *   largest call reads 64 x 2048 x 8 x 128 x 2 (K, V) x 2 B = 536.9 MB: 4.19 TB/s, 0.52 of the MI355X's 8.0 TB/s (the
 *   smaller calls 0.61 and 0.66). The kernel has one gfx9 path (`__HIP__GFX9__`), so the gfx950 share is taken for
 *   gfx942 (calibration/assumed.json).
 * - The Triton unified attention (TRITON_ATTN, and the builds' fallback outside the HIP kernel's sizes): vLLM v0.28's
 *   in-tree kernel on an MI325X (gfx942), bf16, 32 query and 16 KV heads of 256, a 1024-token window of an 8K context,
 *   64-token blocks: 166.53 us at 32 sequences (ROCm/aiter#5415), whose window reads 32 x 1024 x 16 x 256 x 2 x 2 B =
 *   536.9 MB (the whole 8K context would need 25.8 TB/s): 3.22 TB/s, 0.54 of the MI325X's 6.0 TB/s. AITER's fork of
 *   the kernel reads 0.32-0.40 of it at 64 sequences of 8K with 512-wide heads and an fp8 cache (ROCm/aiter#5664).
 *
 * Both well below the 0.81 of the peak the card streams at (time/hardware.ts MEM_EFF_AMD). AITER's backends
 * (VLLM_ROCM_USE_AITER=1: its assembly and CK paged attention, its MLA decode) are other kernels, and an MLA latent is
 * read by other kernels again: neither is covered.
 */
export const VLLM_ROCM_DECODE_READ: NonNullable<
  NonNullable<FrameworkProfile['rocmPagedDecode']>['peakShares']
> = {
  gfx: ['gfx942', 'gfx950'], // the figures' cards: MI325X (gfx942) and MI355X (gfx950)
  split: 0.52, // ll4mi mfma16 + reduce, 64 x 2048 tokens on MI355X, AMD-AGI/AgentKernelArena@3cdf60d5
  triton: 0.54, // vLLM v0.28 Triton unified attention, 32 sequences on MI325X, ROCm/aiter#5415
};

/**
 * The vLLM releases whose ROCm decode runs the split HIP kernel (RocmPagedDecode.releases), read in the wheels' Python:
 *
 * - v0.6.1's V0 ROCm backend decodes every sequence with `PagedAttention.forward_decode`
 *   (vllm/attention/backends/rocm_flash_attn.py of the v0.6.1 wheel), the generic paged_attention_v1/v2 kernel ported
 *   from CUDA; v0.6.2's calls `ops.paged_attention_rocm` where `_use_rocm_custom_paged_attention` allows
 *   (vllm-project/vllm#8310, "Custom paged attention kernel for rocm", merged after the v0.6.1 tag).
 * - That check takes `max_seq_len <= 32768` (the batch's longest sequence on V0) in v0.6.2, v0.8.5, v0.9.0 and v0.9.1
 *   (vllm/platforms/rocm.py `use_rocm_custom_paged_attention` from v0.8), and `max_seq_len <= 128 * 1024` from v0.9.2.
 *
 * The generic kernel (csrc/attention/attention_kernels.cu) runs one workgroup for each query head of each sequence
 * (`head_idx = blockIdx.x`, `kv_head_idx = head_idx / num_queries_per_kv`): each query head's workgroup loads its KV
 * head's keys and values, so a layer reads its KV bytes once for every query head a KV head serves ("vLLM's current
 * paged attention kernel does not leverage the benefits of MQA/GQA", vllm-project/vllm#1880). No timing of that kernel
 * on gfx942 was found: its bytes are read at the split HIP kernel's share (peakShares.split), the kernel written to
 * replace it on MI300 (ROCm/vllm#22, vllm-project/vllm#8310) taken as the bound of its rate (time/decode-attention.ts
 * kvReadRate; docs/assumptions.md).
 */
export const VLLM_ROCM_SPLIT_RELEASES: NonNullable<
  NonNullable<FrameworkProfile['rocmPagedDecode']>['releases']
> = {
  since: '0.6.2', // ops.paged_attention_rocm in rocm_flash_attn.py of v0.6.2, not v0.6.1; vllm-project/vllm#8310
  maxSeqLen: [
    { until: '0.9.2', tokens: 32768 }, // use_rocm_custom_paged_attention, v0.6.2 to v0.9.1 wheels
    { tokens: 128 * 1024 }, // use_rocm_custom_paged_attention, v0.9.2 and v0.10.1 wheels
  ],
};
