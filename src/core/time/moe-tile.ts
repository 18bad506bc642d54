/**
 * An engine's routed-expert matmul at a decode batch of several sequences, where its kernels change with the batch
 * (FrameworkProfile.moeBatchKernel): per-(token, expert slot) mat-vecs up to a few tokens, each reading its expert's
 * weights again; above that a tile kernel that multiplies every routed expert by a column tile as wide as the step's
 * tokens, however few of them the expert was routed.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { ModelFacts } from './model-facts.js';

/**
 * Expert weight elements a step of B tokens reads where the engine's per-slot mat-vecs run it: every token's topK
 * slots read their expert's weights (B x topK experts a layer); null where they do not (one token, a dense model, or
 * above the per-slot limit), and the distinct experts are read once.
 */
export function perSlotExpertRead(
  m: ModelFacts,
  fw: FrameworkProfile,
  B: number,
  cc: number,
): number | null {
  const k = fw.moeBatchKernel;
  if (k === undefined || m.experts <= 1 || B <= 1 || B > k.perSlotMaxTokens || cc <= 0) return null;
  return m.expertWeightsPerLayer * B * m.topK * m.moeLayers;
}

/**
 * The fewest expert weight elements a step of B tokens reads where the engine's tile kernel runs it (above the per-slot
 * limit): the per-slot mat-vecs' read at their widest batch. ggml hands a MUL_MAT_ID to mul_mat_vec_q up to
 * MMVQ_MMID_MAX_BATCH_SIZE tokens, "Max. batch size for which to use MMVQ kernels for MUL_MAT_ID"
 * (ggml/src/ggml-cuda/mmvq.cuh @26fa8d07a55c30f7e26238d866aa746c3cd15a47), the bound past which MMQ is the faster,
 * and MMQ's read only grows with the tokens: a step just past the bound reads no less than one at it. 0 at or below
 * the limit, for a dense model, or where the engine has no per-slot kernel.
 */
export function tileExpertReadFloor(
  m: ModelFacts,
  fw: FrameworkProfile,
  B: number,
  cc: number,
): number {
  const k = fw.moeBatchKernel;
  if (k === undefined || m.experts <= 1 || B <= k.perSlotMaxTokens || cc <= 0) return 0;
  return perSlotExpertRead(m, fw, k.perSlotMaxTokens, cc) ?? 0;
}

/**
 * The tile width the engine's MoE tile kernel picks for B tokens: the narrowest multiple of its granularity (the
 * wider one from `wideFrom` columns) that covers the tokens in the fewest column tiles of at most `maxColumns`.
 */
export function tileColumns(
  B: number,
  t: { granularity: number; wideFrom: number; wide: number; maxColumns: number },
): number {
  let best = 0;
  let bestTiles = Infinity;
  for (let x = t.granularity; x <= t.maxColumns && bestTiles > 1; x += t.granularity) {
    if (x >= t.wideFrom && x % t.wide !== 0) continue;
    const tiles = Math.ceil(B / x);
    if (tiles < bestTiles) {
      best = x;
      bestTiles = tiles;
    }
  }
  return best;
}

/**
 * FLOPs per GPU a decode step's routed experts run beyond their routed tokens' where the engine's MoE tile kernel
 * runs them (above the per-slot limit, on a GPU of compute capability `minCc` or more): each distinct expert a layer
 * routes to (`expertRead` elements a step over the expert's weights and the MoE layers) multiplies whole column tiles,
 * ceil(its tokens / width) of them, its mean B x topK / distinct tokens taken; 0 elsewhere (a caller whose experts
 * run another kernel, 16-bit ones, passes a batch of 0).
 */
export function paddedExpertFlops(
  m: ModelFacts,
  fw: FrameworkProfile,
  s: { batch: number; cc: number; expertRead: number; tp: number },
): number {
  const k = fw.moeBatchKernel;
  const perExpertElements = m.expertWeightsPerLayer * m.moeLayers;
  if (k === undefined || m.experts <= 1 || s.expertRead <= 0 || perExpertElements <= 0) return 0;
  if (s.batch <= k.perSlotMaxTokens || s.cc < k.tile.minCc) return 0;
  const distinct = s.expertRead / perExpertElements;
  const width = tileColumns(s.batch, k.tile);
  const perExpert = (s.batch * m.topK) / distinct;
  const columns = distinct * width * Math.ceil(perExpert / width);
  const routed = s.batch * m.topK;
  return (2 * perExpertElements * Math.max(0, columns - routed)) / s.tp;
}
