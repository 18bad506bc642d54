/**
 * vLLM V1's FLASH_ATTN backend on compute capability 8.x decodes through FlashAttention 2's varlen entry:
 * FlashAttentionImpl.forward calls flash_attn_varlen_func with the paged cache's block table and the layer's
 * `window_size` ((sliding_window - 1, 0) for a sliding layer, (-1, -1) otherwise;
 * vllm/v1/attention/backends/flash_attn.py of the vllm 0.10.1 wheel), which runs torch.ops._vllm_fa2_C.varlen_fwd
 * (vllm/vllm_flash_attn/flash_attn_interface.py, fa_version 2). In that entry (mha_varlen_fwd,
 * csrc/flash_attn/flash_api.cpp at vllm-project/flash-attention@04325b6798bcc326c86fb35af62d05a9c8c8eceb) a decode call
 * takes the split-KV kernel with its split count only when `seqlenq_ngroups_swapped` holds ("Only apply split-k for
 * decoding"), and that needs `max_seqlen_q == 1 && num_heads > num_heads_k && window_size_left < 0 && window_size_right
 * < 0`, tested before the window is clipped to the context: a sliding-window layer, at any context, and a layer with as
 * many K/V heads as query heads keep one split, a program of the split-KV kernel (paged KV forces that kernel) for each
 * sequence and query head walking every key its window admits in tiles of 64 to 256 keys, its query tile 64 rows
 * whatever the query's (set_params_splitkv: "kBlockM = 64 only for the splitKV kernels", block_n by head size). The
 * fork's main keeps the gate: two open pull requests of 2026 would lift it for speculative verify calls
 * (vllm-project/flash-attention#176, vllm-project/flash-attention#190). The V0 engine decoded through flash_attn_with_kvcache, whose entry picks a
 * split count whatever the window: the walk is priced for V1 steps only (time/decode.ts).
 */
import type { UnsplitDecodeWalk } from '../../memory/unsplit-decode-walk.js';

// The share of an SM's dense 16-bit peak one FlashAttention 2 program sustains walking its keys alone, from the kernel
// benchmark of https://pytorch.org/blog/flash-decoding/ ("Component-level micro-benchmarks", A100, f16, batch 1, 16
// query heads of 128 for 2 K/V heads): Flash-Attention v2.0.9 takes 2300.6 µs at seqlen 65536 and 4592.2 µs at 131072.
// That build runs one program a batch row and query head (grid (num_m_block, b, h): 16 programs on 108 SMs), each a
// 128 x 64 tile of 4 warps on sm80 (run_mha_fwd_hdim128, csrc/flash_attn/src/flash_fwd_launch_template.h at
// Dao-AILab/flash-attention@6711b3bc40073e7ced2a4c7d8266feec7e6e137f, tag v2.0.9), so each walks every key at
// 4 x 128 x 128 FLOPs: 1.867 and 1.871 TFLOPS a program against 312 TFLOPS / 108 SMs = 2.889, 0.646 and 0.648.
// Taken for the split-KV kernel's 64-row tile of 256-wide heads (the same 65,536 FLOPs a key, four warps) and for
// other cards: calibration/assumed.json VLLM_FA2_WALK_SM_EFFICIENCY.
export const FA2_WALK_SM_EFFICIENCY = 0.65;

export const VLLM_FA2_VARLEN_WALK: UnsplitDecodeWalk = {
  family: 'flash-attn-2',
  blockM: 64, // split-KV kernel's query tile: flash_api.cpp set_params_splitkv, vllm-project/flash-attention@04325b67
  smEfficiency: FA2_WALK_SM_EFFICIENCY,
  // No q <-> head swap, so no split: a sliding window, or no more query heads than K/V heads (flash_api.cpp above).
  unsplit: (l) => l.slidingWindow !== null || l.heads <= l.kvHeads,
};
