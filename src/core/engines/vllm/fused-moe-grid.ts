/**
 * vLLM's Triton fused_moe launch grid (FrameworkProfile.fusedMoeTile16.grid; time/moe-grid.ts prices it).
 *
 * Tiles: `get_default_config` (vllm/model_executor/layers/fused_moe/fused_moe.py @000d1458, the same dict in the v0.11+
 * copies): 16-bit experts BLOCK_SIZE_M 16 x BLOCK_SIZE_N 32 up to M = E tokens, 64 x 64 above; block-scaled FP8 64 x
 * block_shape[0] (128). `moe_align_block_size` pads E experts, not E + 1 (`max_num_tokens_padded = topk_ids.numel() +
 * num_experts * (block_size - 1)`, vllm/model_executor/layers/fused_moe/moe_align_block_size.py before and after
 * vllm-project/vllm#29642); vllm-project/vllm#29642 (merged in the week to 2025-12-12, after v0.12.0; first in v0.13.0)
 * sizes it `min(numel x block_size, ...)` when `topk_ids.numel() < num_experts`. `invoke_fused_moe_kernel` (same
 * fused_moe.py) launches `cdiv(EM, BLOCK_SIZE_M)` row blocks, EM = `min(len(sorted_token_ids), M x top_k x
 * BLOCK_SIZE_M)` when M < BLOCK_SIZE_M ("optimize for small batch_size"), in every build read: below BLOCK_SIZE_M
 * tokens at most M x topk row blocks, so the buffer's size moves the grid only from BLOCK_SIZE_M tokens up.
 *
 * Cost of an early-exiting program: the Hopper figure (sgl-project/sglang#11730's call, engines/sglang/fused-moe-grid.ts),
 * a property of the shared batch-1 call figure (engines/moe-call.ts), not of the engine. None on Ampere: the A100 call
 * figure (vllm-project/vllm#19049, one token, 16 x 32 tiles) ran under the row cap above, 8 row blocks all holding a
 * token, so it launched no early-exiting program to spread its latency over.
 */
import type { FusedMoeGrid } from '../../time/moe-grid-types.js';
import { SGLANG_FUSED_MOE_GRID, TRITON_FUSED_MOE_LARGE_M_SHARE } from '../sglang/fused-moe-grid.js';

export const VLLM_FUSED_MOE_GRID: FusedMoeGrid = {
  tiles: {
    small16: { m: 16, n: 32 }, // get_default_config, M <= E (fused_moe.py @000d1458)
    large16: { m: 64, n: 64 }, // get_default_config, M > E
    blockFp8: { m: 64, n: 128 }, // get_default_config, fp8_w8a8 with block_shape [128, 128]
  },
  alignExtraExperts: 0, // moe_align_block_size.py: num_experts * (block_size - 1)
  smallBatchRowCap: true, // invoke_fused_moe_kernel: EM = min(len(sorted_token_ids), M x top_k x BLOCK_SIZE_M)
  epAlignsLocal: true, // vllm 0.33.0 experts/triton_moe.py: ignore_invalid_experts=skip_invalid (expert_map set)
  exitProgram: { hopper: SGLANG_FUSED_MOE_GRID.exitProgram.hopper },
  largeMPeakShare: TRITON_FUSED_MOE_LARGE_M_SHARE, // vllm-project/vllm#40542 and vllm-project/vllm#24700 tables
};
