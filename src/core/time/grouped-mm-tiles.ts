/**
 * Per-group tile padding of torch._grouped_mm's CUTLASS kernel (compute capability 9.x and 10.x, bf16: the path
 * time/grouped-mm.ts calls fast). Each group (expert) is its own GEMM problem, tiled on its own: a group of M rows runs
 * ceil(M / tile_m) row tiles of tile_m rows (CUTLASS `PersistentTileSchedulerSm90Group::get_tiled_cta_shape_mnl`,
 * NVIDIA/cutlass include/cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp @0046e36: `ceil_div(shape<0>(problem),
 * shape<0>(cta_shape))` per group), so a group whose rows are not a whole number of tiles computes the rest of its last
 * tile for nothing. At a few hundred rows an expert (Qwen3-30B-A3B at 4,096 tokens: 256) that is a large share.
 *
 * The tile, from PyTorch's dispatch (pytorch/pytorch aten/src/ATen/native/cuda/GroupMM.cu @06c0cf0,
 * `dispatch_bf16_grouped_kernel_on_tile_size`, `M = M / group_count` for a 2-D x 3-D call): on 9.x 128 x 256 x 64
 * (cooperative) unless the mean rows a group or N is at most 128 (`small`: 64 x 128 x 128, ping-pong); on 10.x always
 * 64 x 128 x 128. The weight gradient (2-D x 2-D, the rows are the ragged K) pads each group's rows to the tile's K.
 *
 * The scheduler also rounds each group's row tiles up to the 2 x 1 cluster; pytorch/ao#2490's H100 table (below)
 * reads at the tile's padding without that round-up, so only the tile's is priced.
 *
 * Rows a group: each of T tokens (T x ep under expert parallelism, whose all-to-all brings the group's tokens to
 * each rank's experts) picks top-k of E experts, so an expert's rows are Binomial(T, k/E) (routing read as
 * uniform: docs/assumptions.md), rounded up to whole tiles as every per-expert tile kernel's (expert-balance.ts
 * expectedPaddedRows).
 */
import { expectedPaddedRows } from './expert-balance.js';
import { groupedMmFallback } from './grouped-mm.js';
import type { TrainWork } from './train-work.js';

/** PyTorch's bf16 grouped tile on 9.x where neither the mean rows a group nor N is small (GroupMM.cu @06c0cf0). */
const SM90_TILE_M = 128;
const SM90_TILE_K = 64;
/** Its `small` tile (mean rows or N <= 128) on 9.x, and the only one on 10.x: 64 x 128 x 128 (GroupMM.cu @06c0cf0). */
const SMALL_TILE_M = 64;
const SMALL_TILE_K = 128;
/** GroupMM.cu's `small` bound on the mean rows a group and on N (`M <= 128 || N <= 128`, @06c0cf0). */
const SMALL_BOUND = 128;

/**
 * The row tile (tile_m) of the forward and input-gradient calls, and the K tile of the weight gradient, of
 * torch._grouped_mm's CUTLASS kernel on this GPU. The weight gradient's `small` test reads its M and N, the weight's
 * two sides (at least the forward's N), not the rows.
 */
export function groupedMmTiles(cc: number, meanRows: number, n: number): { m: number; k: number } {
  const sm90 = Math.floor(cc) === 9;
  const smallRows = !sm90 || meanRows <= SMALL_BOUND || n <= SMALL_BOUND;
  const smallGrad = !sm90 || n <= SMALL_BOUND;
  return {
    m: smallRows ? SMALL_TILE_M : SM90_TILE_M,
    k: smallGrad ? SMALL_TILE_K : SM90_TILE_K,
  };
}

/**
 * The routed experts' grouped GEMMs' useful share of the rows they compute on this GPU, forward (and the input
 * gradient, the same 2-D x 3-D call) and weight gradient, at `tokens` a micro-batch each routed to a given expert
 * with chance `p` (top-k over experts) and forward output width `n`: 1 where there are no rows.
 */
export function groupedTileShares(
  cc: number,
  tokens: number,
  p: number,
  n: number,
): { rows: number; weightGrad: number } {
  if (tokens <= 0 || p <= 0) return { rows: 1, weightGrad: 1 };
  const mean = tokens * Math.min(1, p);
  const tile = groupedMmTiles(cc, mean, n);
  return {
    rows: mean / expectedPaddedRows(tokens, Math.min(1, p), tile.m),
    weightGrad: mean / expectedPaddedRows(tokens, Math.min(1, p), tile.k),
  };
}

/**
 * The tile shares of this micro-batch's routed-expert GEMMs where they are torch._grouped_mm's CUTLASS calls on this
 * GPU (time/grouped-mm.ts: 9.x or 10.x, bf16); 1 elsewhere (the per-group fallback runs cuBLAS matmuls, the loop and
 * dense dispatches are not grouped).
 */
export function groupedTileSharesOf(
  w: Pick<TrainWork, 'groupedMm' | 'groupedMmBf16' | 'tokens'>,
  cc: number,
): { rows: number; weightGrad: number } {
  const g = w.groupedMm;
  if (g.fwdCalls === 0 || !(cc > 0) || groupedMmFallback(cc, w.groupedMmBf16)) {
    return { rows: 1, weightGrad: 1 };
  }
  const p = g.routeP;
  const tokens = w.tokens * g.epRanks;
  return p > 0 ? groupedTileShares(cc, tokens, p, g.width) : { rows: 1, weightGrad: 1 };
}
