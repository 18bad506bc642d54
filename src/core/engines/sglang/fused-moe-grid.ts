/**
 * SGLang's Triton fused_moe launch grid (FrameworkProfile.fusedMoeTile16.grid; time/moe-grid.ts prices it).
 *
 * Tiles: `get_default_config` (sglang==0.5.2 `layers/moe/fused_moe_triton/fused_moe_triton_config.py`, the config the
 * rows without a tuned file ran): 16-bit experts BLOCK_SIZE_M 16 x BLOCK_SIZE_N 32 up to M = E tokens, 64 x 64 above;
 * block-scaled FP8 64 x block_shape[0] (128). `moe_align_block_size` pads num_experts + 1 experts
 * (`max_num_tokens_padded = topk_ids.numel() + (num_experts + 1) * (block_size - 1)`, the same file set).
 *
 * The cost of an early-exiting program is the batch-1 call's whole latency beyond its bytes and kernel gaps
 * (engines/moe-call.ts) spread over the programs per SM that call launched and that returned at once: an upper bound,
 * since part of that latency is the routing kernels' own (a B200 call timed with few such programs, vllm-project/vllm#31448,
 * keeps 9.1 µs). No kernel timing of early-exiting programs alone was found; listed in calibration/assumed.json.
 * - Hopper: sgl-project/sglang#11730 (SGLang of October 2025, before the small-batch cap), Qwen3-235B-A22B FP8 over
 *   TP 8 on an H200: E = 128, top-8, N = 192 (w13 384 wide), hidden 4096, tiles 64 x 128 at one token: 8 + 129 x 63 =
 *   8,135 slots, 128 row blocks, 8 with a token, 120 x (3 + 32) = 4,200 programs returning at once over 132 SMs:
 *   31.8 per SM, 7.1 µs.
 * Ampere's timed call (vllm-project/vllm#19049, vLLM, Qwen3-30B-A3B at one token on an A100, 16 x 32 tiles) ran
 * under vLLM's row cap below BLOCK_SIZE_M tokens (`invoke_fused_moe_kernel`'s EM = min(len(sorted_token_ids), M x
 * top_k x BLOCK_SIZE_M); engines/vllm/fused-moe-grid.ts): 8 row blocks, each with a token, no early-exiting program to
 * spread its latency over; Blackwell's timed call has no such count either: no cost on either.
 */
import type { FusedMoeGrid } from '../../time/moe-grid-types.js';

/**
 * The 16-bit Triton fused_moe's rate once its row blocks fill, from `benchmarks/kernels/benchmark_moe.py` tables with
 * tuned configs (FusedMoeGrid.largeMPeakShare):
 * - A100 SXM4 80GB: vllm-project/vllm#40542, E=64, N=1408, hidden 2048, top-6, bf16: 2636.6 µs at M = 4096 (24,576
 *   routed rows, 384 an expert: no padded block), 2 x 24,576 x (2,816 + 1,408) x 2,048 = 425 GFLOP, 161 TFLOP/s, 0.517
 *   of the A100's 312 TFLOPS.
 * - H100 80GB HBM3: vllm-project/vllm#24700, Mixtral's E=8, N=7168 (TP 2), hidden 4096, top-2, the shipped tuned
 *   file: 1122.93 µs at M = 1536 (3,072 routed rows, 384 an expert), 2 x 3,072 x (14,336 + 7,168) x 4,096 = 541 GFLOP,
 *   482 TFLOP/s, 0.487 of the H100 SXM's 989 TFLOPS.
 */
export const TRITON_FUSED_MOE_LARGE_M_SHARE = {
  ampere: 0.517, // vllm-project/vllm#40542: 425 GFLOP in 2636.6 µs on an A100 SXM4 80GB
  hopper: 0.487, // vllm-project/vllm#24700: 541 GFLOP in 1122.93 µs on an H100 SXM
};

const HOPPER_TIMED_PER_SM = 4200 / 132; // sgl-project/sglang#11730's call on an H200 (above)

export const SGLANG_FUSED_MOE_GRID: FusedMoeGrid = {
  tiles: {
    small16: { m: 16, n: 32 }, // get_default_config, M <= E (sglang==0.5.2)
    large16: { m: 64, n: 64 }, // get_default_config, M > E
    blockFp8: { m: 64, n: 128 }, // get_default_config, block_shape [128, 128]
  },
  alignExtraExperts: 1, // moe_align_block_size.py: num_experts + 1
  exitProgram: {
    // 7.1 µs (engines/moe-call.ts TRITON_FUSED_MOE.hopper) over 31.8 programs per SM: 223 ns
    hopper: { seconds: 7.1e-6 / HOPPER_TIMED_PER_SM, timedPerSm: HOPPER_TIMED_PER_SM },
  },
  // The same kernel as vLLM's (SGLang's fused_moe_triton copies it): the shares vLLM's tables give.
  largeMPeakShare: TRITON_FUSED_MOE_LARGE_M_SHARE,
};
