/**
 * The Triton fused_moe kernel's launch grid at a decode batch. `moe_align_block_size` sizes `sorted_token_ids` for
 * every expert's padded block (topk x M + (E + 1) x (BLOCK_SIZE_M - 1) slots), and `invoke_fused_moe_kernel` launches
 * cdiv(slots, BLOCK_SIZE_M) x cdiv(N, BLOCK_SIZE_N) programs for each of the two GEMMs; a program whose row block lies
 * past `num_tokens_post_padded` loads that count and returns (`fused_moe_kernel`, `if pid_m * BLOCK_SIZE_M >=
 * num_tokens_post_padded: return`; sglang==0.5.2 `layers/moe/fused_moe_triton/fused_moe_triton_kernels.py` and
 * `moe_align_block_size.py`). At a few tokens most programs exit so, and their number grows with the experts, not
 * the tokens: 512 experts launch four times the row blocks of 128. Builds with the small-batch cap
 * (sgl-project/sglang#14133: fewer slots than E + 1 routed ones size the buffer topk x M x BLOCK_SIZE_M; sglang 0.5.8's
 * `moe_align_block_size.py`; vllm-project/vllm#29642, first in vLLM v0.13.0, the same below E routed slots) launch few
 * such programs below it. vLLM's launch also caps the row blocks at M x topk below BLOCK_SIZE_M tokens in every build.
 *
 * The engine's batch-1 call figure (engines/moe-call.ts, priced by time/moe-call.ts) was timed at one shape, whose early-exiting programs are in
 * it; this prices the programs a step launches per SM beyond that shape's, at the generation's cost per program
 * (the profile's `fusedMoeTile16.grid`).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { runsBlockFp8Path } from './block-fp8.js';
import { fusedMoeChainSeconds } from './moe-call.js';
import { routedBatch } from './graph-step.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import type { FusedMoeGrid, MoeTileMN } from './moe-grid-types.js';
import { busiestRankFactor } from './expert-balance.js';
import { defaultTileSeconds, tunedTile } from './moe-default-tiles.js';

/** One step's batch and GPU as the grid reads them. */
export interface GridStep {
  batch: number;
  tp: number;
  cc: number;
  sms: number;
  /** Block-scaled FP8 experts (the FP8 tiles); else 16-bit. */
  blockFp8: boolean;
  /** The build sizes the buffer for every expert at any batch (before the small-batch cap). */
  uncapped: boolean;
  /**
   * Expert-parallel ranks of one TP group (FusedMoeGrid.epAlignsLocal; absent or 1: none) and the busiest rank's
   * distinct experts over the mean rank's (expert-balance.ts busiestRankFactor): its blocks are the live ones.
   */
  ep?: number;
  busiest?: number;
  /**
   * BLOCK_SIZE_M and BLOCK_SIZE_N of the tuned config file the engine reads for this step (moe-default-tiles.ts
   * tunedTile); absent: the default tiles (FusedMoeGrid.tiles).
   */
  tuned?: MoeTileMN;
}

/** The early-exiting programs of one MoE layer's two fused_moe GEMMs at `batch` tokens. */
export function exitPrograms(m: ModelFacts, g: FusedMoeGrid, s: GridStep): number {
  // A tuned file's tiles where one applies: its BLOCK_SIZE_N sets each row block's columns (cdiv(N, BLOCK_SIZE_N)).
  const tile =
    s.tuned ??
    (s.blockFp8 ? g.tiles.blockFp8 : s.batch <= m.experts ? g.tiles.small16 : g.tiles.large16);
  const slots = s.batch * m.topK;
  const aligned = m.experts + g.alignExtraExperts;
  const padded = !s.uncapped && slots < aligned ? slots * tile.m : slots + aligned * (tile.m - 1);
  // vLLM launches at most M x topk row blocks below BLOCK_SIZE_M tokens (FusedMoeGrid.smallBatchRowCap).
  const cap = g.smallBatchRowCap === true && s.batch < tile.m ? slots : Infinity;
  const rowBlocks = Math.min(Math.ceil(padded / tile.m), cap);
  // Row blocks with tokens: each distinct routed expert's tokens in whole blocks (E(1 - (1 - k/E)^B) experts hit); under
  // expert parallelism the busiest rank's own experts and their share of the slots (FusedMoeGrid.epAlignsLocal).
  const ep = s.ep ?? 1;
  const hit = m.experts * (1 - Math.pow(1 - m.topK / m.experts, s.batch));
  const distinct = ep > 1 ? Math.min(m.experts / ep, (hit / ep) * (s.busiest ?? 1)) : hit;
  const live = Math.min(rowBlocks, distinct * Math.ceil(slots / ep / distinct / tile.m));
  // w13's N is the gate and up projections of this GPU's expert shard (one of them ungated; a whole expert under expert
  // parallelism), w2's the hidden size.
  const width = m.expertFfn / (ep > 1 ? 1 : s.tp);
  const columns = Math.ceil(((m.gated ? 2 : 1) * width) / tile.n) + Math.ceil(m.hidden / tile.n);
  return Math.max(0, rowBlocks - live) * columns;
}

/**
 * Seconds a decode step's MoE layers spend on early-exiting fused_moe programs beyond those of the shape the engine's
 * batch-1 call figure was timed at; 0 where the engine gives no grid or the generation no cost (Blackwell: its timed
 * call ran a capped build), and off NVIDIA.
 */
export function fusedMoeExitSeconds(m: ModelFacts, fw: FrameworkProfile, s: GridStep): number {
  const g = fw.fusedMoeTile16?.grid;
  if (g === undefined || m.moeLayers <= 0 || m.experts <= 1 || s.sms <= 0 || s.cc <= 0) return 0;
  const cost = s.cc >= 10 ? undefined : s.cc >= 9 ? g.exitProgram.hopper : g.exitProgram.ampere;
  if (cost === undefined) return 0;
  const perSm = exitPrograms(m, g, s) / s.sms;
  return m.moeLayers * Math.max(0, perSm - cost.timedPerSm) * cost.seconds;
}

/**
 * A decode step's early-exiting fused_moe programs (fusedMoeExitSeconds) where the engine runs the experts through
 * the Triton fused_moe: 16-bit experts on that path (`triton16`, decode.ts moeLayersSeconds) or block-scaled FP8 ones
 * (block-fp8.ts runsBlockFp8Path), at the step's routed batch (a replayed graph's padded rows are routed too,
 * graph-step.ts routedBatch). With expert parallelism within one TP group where the engine aligns the rank's own
 * experts only (FusedMoeGrid.epAlignsLocal: vLLM), at whole-expert width with the busiest rank's blocks live. Not with
 * DP attention, nor expert parallelism elsewhere: SGLang's programs for other ranks' experts write zeros (`off_experts
 * == -1`) and DP attention's tokens are gathered, neither priced here.
 */
export function decodeExitSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  triton16: boolean,
): number {
  const fw = FRAMEWORKS[o.framework];
  const blockFp8 = runsBlockFp8Path(m.arch, o, r.cc);
  const ep = o.ep ?? 1;
  if ((!triton16 && !blockFp8) || o.dpAttention === true || r.rocm) return 0;
  if (ep > 1 && fw.fusedMoeTile16?.grid?.epAlignsLocal !== true) return 0;
  const batch = routedBatch(o, t, r, o.batch);
  const uncapped = t.moeAlignUncapped === true;
  return fusedMoeExitSeconds(m, fw, {
    batch,
    tp: o.tp,
    cc: r.cc,
    sms: r.sms ?? 0,
    blockFp8,
    uncapped,
    ep,
    busiest: busiestRankFactor(m, o, batch),
    tuned: tunedTile(m, o, t, r, { triton16, tokens: batch }),
  });
}

/**
 * A decode step's Triton fused_moe seconds beyond the engine's call figure: the 16-bit GEMMs' K-loop chains
 * (moe-call.ts fusedMoeChainSeconds, over this GPU's expert width), the early-exiting programs, and the default tiles
 * where the release had no tuned file for the experts' dtype family (moe-default-tiles.ts).
 * `layerBytes`: one MoE layer's routed-expert bytes on one GPU this step.
 */
export function tritonMoeSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  layerBytes: number,
  triton16: boolean,
): number {
  const width = m.expertFfn / ((o.ep ?? 1) > 1 ? 1 : o.tp);
  const fw = FRAMEWORKS[o.framework];
  const chain = triton16 ? fusedMoeChainSeconds(m, fw, r, layerBytes, width) : 0;
  return (
    chain +
    decodeExitSeconds(m, o, t, r, triton16) +
    defaultTileSeconds(m, o, t, r, layerBytes, triton16)
  );
}
