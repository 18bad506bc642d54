/**
 * torch._grouped_mm off the GPUs PyTorch builds its grouped kernel for. `_grouped_mm_cuda` (pytorch/pytorch
 * aten/src/ATen/native/cuda/GroupedBlas.cpp @00d4eaf) takes its CUTLASS kernel ("fast path, no d2h sync needed")
 * only where `_scaled_mm_allowed_device(sm90_only, sm100_only)` holds, compute capability 9.x or 10.x, and every
 * operand is bf16; anywhere else it runs `_grouped_mm_fallback` (aten/src/ATen/native/GroupedMMUtils.h): the
 * offsets copied to the host (`offs.cpu()`, a copy the host waits for) and one `at::mm_out` per group, every expert
 * of the layer in turn. pytorch/pytorch#186620 ("grouped_mm slow on A100", torchtitan's Qwen3 MoE) was closed with
 * no plan for "a fused non H2D sync variant on ampere". An engine whose grouped experts are these calls says so in
 * its profile (`torchGroupedMm`); the calls per micro-batch come from train-work.ts.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';

/** Whether this GPU runs torch._grouped_mm as PyTorch's per-group fallback (AMD: not modelled, 0 = no cc). */
export function groupedMmFallback(cc: number, bf16: boolean): boolean {
  if (!(cc > 0)) return false;
  const major = Math.floor(cc);
  return !bf16 || (major !== 9 && major !== 10);
}

/** torch._grouped_mm calls of one micro-batch on this rank (forward, backward) and the groups each loops over. */
export interface GroupedMmWork {
  fwdCalls: number;
  bwdCalls: number;
  groups: number;
  /** The chance a token routes to a given expert (top-k over experts): an expert's rows are Binomial(tokens, this). */
  routeP: number;
  /** Ranks whose tokens reach this rank's experts: expert parallelism's all-to-all brings the group's (1 without). */
  epRanks: number;
  /** The narrower output width of the forward calls on this rank (expert width or hidden): GroupMM.cu's N. */
  width: number;
}

const NO_CALLS: GroupedMmWork = {
  fwdCalls: 0,
  bwdCalls: 0,
  groups: 0,
  routeP: 0,
  epRanks: 1,
  width: 0,
};

/**
 * An engine whose grouped experts are torch._grouped_mm calls (profile `torchGroupedMm`) makes two a MoE layer in
 * forward, the fused gate_up projection and down (transformers 5's grouped_mm_experts_forward, unsloth_zoo's
 * grouped_mm backend), or its profile's `calls` (torchtitan: w1, w3 and w2 apart), plus `loraCalls` for each adapted
 * projection. Backward: each call's input gradient, and a
 * weight gradient where the weight trains (full fine-tuning; ParamWrapper's W + ΔW on adapted projections; each
 * LoRA call's own factor), one grouped call each (derivatives.yaml `_grouped_mm`). Each call loops over the
 * layer's experts on this rank.
 */
export function groupedMmWork(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  lora: boolean,
  grouped: boolean,
  paramWrapper: boolean,
): GroupedMmWork {
  const tg = FRAMEWORKS[o.framework].torchGroupedMm;
  if (!tg || !grouped || m.experts <= 1 || m.moeLayers === 0) return NO_CALLS;
  const layers = (m.moeLayers * layersHere) / m.layers;
  const t = lora ? o.loraTargets : [];
  const adapted =
    (t.some((r) => r === 'gate' || r === 'up') ? 1 : 0) + (t.includes('down') ? 1 : 0);
  const loraCalls = adapted * tg.loraCalls;
  const calls = tg.calls ?? 2;
  const weightGrads = !lora ? calls : paramWrapper ? adapted : 0;
  return {
    fwdCalls: layers * (calls + loraCalls),
    bwdCalls: layers * (calls + weightGrads + 2 * loraCalls),
    groups: m.experts / Math.max(1, o.ep ?? 1),
    routeP: Math.min(1, m.topK / m.experts),
    epRanks: Math.max(1, o.ep ?? 1),
    width: Math.min(m.expertFfn / Math.max(1, o.tp), m.hidden),
  };
}

/**
 * Eager passes over the FFN width per token of a gated activation (silu reads and writes the gate, the product reads two
 * and writes one), as train-work.ts elemBytesPerTokenLayer prices every layer's (transformers' and torchtitan's
 * `silu(x @ w1) * (x @ w3)`, models/common/moe.py @b5bcd76c).
 */
export const EAGER_GATED_ACT_PASSES = 5;

/**
 * Forward bytes of the grouped experts' wrapper outside its matmuls, on this rank (profile `torchGroupedMm.rowPasses`:
 * hidden-wide passes per routed row, `compiledRowPasses` where the model runs compiled, plus the top-k sum's one write a
 * token): transformers 5 gathers, sorts, scales,
 * unsorts and sums every routed row around the two grouped calls. The step prices it as elementwise traffic
 * (backward twice the forward's). 0 for other dispatches or engines that do not count it.
 */
export function groupedRowBytes(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  layersHere: number,
  grouped: boolean,
  compiled = false,
  alignPermute = false,
): number {
  const tg = FRAMEWORKS[o.framework].torchGroupedMm;
  const passes = compiled ? (tg?.compiledRowPasses ?? tg?.rowPasses) : tg?.rowPasses;
  if (passes === undefined || !grouped || m.experts <= 1 || m.moeLayers === 0) return 0;
  const layers = (m.moeLayers * layersHere) / m.layers;
  const elem = o.compute === 'fp32' ? 4 : 2;
  // The model's own expert activation and biases beyond the gated count (profile expertActivationPasses), eager only.
  const act = compiled ? undefined : tg?.expertActivationPasses?.[m.modelType];
  const actExtra =
    act === undefined
      ? 0
      : ((act - EAGER_GATED_ACT_PASSES) * m.expertFfn * m.topK) / Math.max(1, o.tp);
  const rows = tokens * ((passes * m.topK + 1) * m.hidden + actExtra) * elem * layers;
  return rows + (alignPermute ? alignPermuteBytes(m, o, tokens, layers, compiled) : 0);
}

/**
 * Forward bytes of a build's alignment permute around the grouped experts (profile `torchGroupedMm.alignPermute`,
 * TimeOptions.alignPermute; engines/torchtitan/memory.ts reads torchtitan's `expert_parallel` wrapper): its hidden-wide
 * passes over the tokens x top-k routed rows, and the two passes (the gather's write, the index_put's read) over each
 * expert's padding rows. `layers`: the MoE layers on this rank. 0 where the profile has none.
 */
export function alignPermuteBytes(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  layers: number,
  compiled: boolean,
): number {
  const ap = FRAMEWORKS[o.framework].torchGroupedMm?.alignPermute;
  if (ap === undefined || m.experts <= 1) return 0;
  const passes = compiled ? ap.compiledRowPasses : ap.rowPasses;
  const experts = m.experts / Math.max(1, o.ep ?? 1);
  const elem = o.compute === 'fp32' ? 4 : 2;
  return (passes * tokens * m.topK + 2 * experts * ap.alignRows) * m.hidden * elem * layers;
}
