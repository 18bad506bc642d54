/**
 * The rows the Triton fused_moe multiplies at a decode batch beyond its routed ones. `moe_align_block_size` pads each
 * expert's routed rows to whole BLOCK_SIZE_M blocks (the cumulative sum over experts of
 * CEILDIV(rows_e, block_size) x block_size; vllm-project/vllm@00e6fb6d csrc/moe/moe_align_sum_kernels.cu, SGLang's copy
 * in sgl-project/sglang@ce378154 sgl-kernel/csrc/moe/moe_align_kernel.cu), and `fused_moe_kernel` runs each block's `tl.dot` over all BLOCK_SIZE_M rows:
 * the padded ones are masked at load (`token_mask = offs_token < num_valid_tokens`) but multiplied
 * (vllm/model_executor/layers/fused_moe/fused_moe.py, SGLang's layers/moe/fused_moe_triton/fused_moe_triton_kernels.py).
 *
 * With the routing the model assumes (each token to topK of E experts, time/expert-balance.ts), one expert's rows at B
 * tokens are Binomial(B, k/E): each expert's own load is rounded up (an expert of 1 row fills a block as one of M rows
 * does; expert-balance.ts expectedPaddedRows), and the kernel's programs are one grid over every expert's blocks, so the
 * total, not the busiest expert's, is what the SMs run.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat, TimeOptions } from '../../schema/time.js';
import { runsBlockFp8Path } from './block-fp8.js';
import { expectedPaddedRows } from './expert-balance.js';
import { trtllmMoe16 } from './decode-host.js';
import { routedBatch } from './graph-step.js';
import { tunedBlockM } from './moe-default-tiles.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/** One decode step's Triton fused_moe. */
export interface TritonMoeStep {
  /** Tokens routed this step (a replayed graph's padded rows included: graph-step.ts routedBatch). */
  batch: number;
  /** Block-scaled FP8 experts (the FP8 tiles); else 16-bit. */
  blockFp8: boolean;
  /**
   * BLOCK_SIZE_M of the tuned config file the engine reads for this step (moe-default-tiles.ts tunedBlockM); absent:
   * the default tiles' (FusedMoeGrid.tiles).
   */
  tunedM?: number;
}

/**
 * GEMM FLOPs per GPU a decode step's Triton fused_moe runs beyond its routed rows: every expert's padded rows less its
 * routed ones, through both GEMMs at this GPU's share of the expert's weights (TP splits each expert's width), at the
 * tuned file's BLOCK_SIZE_M where one applies (TritonMoeStep.tunedM), else the engine's default for the batch and dtype
 * (FusedMoeGrid.tiles). 0 where the engine gives no grid.
 */
export function tritonPaddedFlops(
  m: ModelFacts,
  fw: FrameworkProfile,
  s: TritonMoeStep & { tp: number },
): number {
  const g = fw.fusedMoeTile16?.grid;
  if (g === undefined || m.experts <= 1 || m.moeLayers <= 0 || s.batch <= 0) return 0;
  const tile = s.blockFp8
    ? g.tiles.blockFp8
    : s.batch <= m.experts
      ? g.tiles.small16
      : g.tiles.large16;
  const padded = m.experts * expectedPaddedRows(s.batch, m.topK / m.experts, s.tunedM ?? tile.m);
  const extra = Math.max(0, padded - s.batch * m.topK);
  return (2 * m.expertWeightsPerLayer * m.moeLayers * extra) / s.tp;
}

/**
 * The step's Triton fused_moe where the engine runs its experts through it (the grid's early-exiting programs are
 * priced where the same holds, moe-grid.ts decodeExitSeconds): 16-bit experts on that path (no weight-only kernel,
 * not the TensorRT-LLM MoE) or block-scaled FP8 ones, on NVIDIA, at the step's routed batch (graph-step.ts
 * routedBatch), at the tuned file's BLOCK_SIZE_M where the engine ships one for the step (moe-default-tiles.ts
 * tunedBlockM); undefined elsewhere, and with DP attention, whose ranks' tokens are gathered before the experts (not
 * priced here).
 */
export function decodeTritonMoe(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  s: { batch: number; q: QuantFormat | null },
): TritonMoeStep | undefined {
  if (m.experts <= 1 || o.dpAttention === true || r.rocm) return undefined;
  const blockFp8 = runsBlockFp8Path(m.arch, o, r.cc);
  const triton16 = s.q === null && !trtllmMoe16(m, o, r.cc, t);
  if (!triton16 && !blockFp8) return undefined;
  const batch = routedBatch(o, t, r, s.batch);
  const tunedM = tunedBlockM(m, o, t, r, { triton16, tokens: batch });
  return { batch, blockFp8, ...(tunedM !== undefined ? { tunedM } : {}) };
}

/**
 * FLOP/s of the 16-bit Triton fused_moe's GEMMs on this card: the card's GEMM rate `rate`, held to the share of its
 * 16-bit peak the kernel reaches once its row blocks fill where the engine's grid gives one for the generation
 * (FusedMoeGrid.largeMPeakShare: compute capability 8.x and 9.x); `rate` for block-scaled FP8 experts and elsewhere.
 */
export function tritonMoeRate(
  fw: FrameworkProfile,
  r: { cc: number; peak16: number },
  s: TritonMoeStep,
  rate: number,
): number {
  const share = fw.fusedMoeTile16?.grid?.largeMPeakShare;
  if (share === undefined || s.blockFp8) return rate;
  const gen =
    r.cc >= 9 && r.cc < 10 ? share.hopper : r.cc >= 8 && r.cc < 9 ? share.ampere : undefined;
  return gen === undefined ? rate : Math.min(rate, gen * r.peak16);
}
