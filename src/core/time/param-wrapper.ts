/** PEFT's lora.ParamWrapper on fused 3-D experts: the work of building and applying ΔW per micro-batch. */
import { type EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { gateUpRank, peftRemaps } from '../model/peft-moe.js';

// PEFT lora.ParamWrapper (target_parameters on fused 3-D experts; peft v0.20.0 tuners/lora/layer.py @a5526d27):
// each forward builds ΔW = einsum(B, A) for every expert (2·r FLOPs per weight, written once) and the
// parametrized W + ΔW (reads W and ΔW, writes W'), so 4 weight-sized passes in the compute dtype; W' needs a
// gradient, so the grouped GEMM's backward also computes its weight gradient (the frozen-weight GEMM FLOPs
// again), written once and read by the einsum's two gradients (4·r FLOPs per weight): 3 passes.
const PARAM_WRAPPER_FWD_PASSES = 4;
const PARAM_WRAPPER_BWD_PASSES = 3;

export const NO_DELTA = { share: 0, fwdFlops: 0, fwdBytes: 0, bwdFlops: 0, bwdBytes: 0 };

/**
 * ParamWrapper's per-micro-batch work on the adapted expert weights of this rank's MoE layers: the share of
 * each expert's weights adapted (gate_up_proj holds gate and up: one is enough to adapt both), ΔW's einsum
 * and W + ΔW in forward, the weight gradient and the einsum's gradients in backward (PARAM_WRAPPER_* above),
 * each pass at the experts' width `eb` (fp32 where the engine left them unquantized: time/float-experts.ts).
 */
export function deltaWork(
  m: ModelFacts,
  o: EstimateOptions,
  lora: boolean,
  tp: number,
  layers: number,
  eb: number,
) {
  if (!lora || m.expertLinears === 0) return NO_DELTA;
  const gateUp = o.loraTargets.some((r) => r === 'gate' || r === 'up') ? 2 : 0;
  const down = o.loraTargets.includes('down') ? 1 : 0;
  const share = Math.min(1, (gateUp + down) / m.expertLinears);
  if (share === 0) return NO_DELTA;
  const all = (m.experts * m.expertWeightsPerLayer * layers) / tp;
  const weights = all * share;
  const bytes = o.compute === 'fp32' ? 4 : eb;
  // gate_up_proj's ParamWrapper at rank 2r where PEFT remaps the targets (model/peft-moe.ts gateUpRank).
  const rGu = gateUpRank(
    o.loraRank,
    peftRemaps(FRAMEWORKS[o.framework], m.modelType),
    o.loraTargets.includes('gate'),
    o.loraTargets.includes('up'),
  );
  const gateUpWeights = gateUp > 0 ? Math.min(weights, (all * gateUp) / m.expertLinears) : 0;
  const rankWeights = o.loraRank * weights + (rGu - o.loraRank) * gateUpWeights;
  return {
    share,
    fwdFlops: 2 * rankWeights,
    fwdBytes: PARAM_WRAPPER_FWD_PASSES * bytes * weights,
    bwdFlops: 4 * rankWeights,
    bwdBytes: PARAM_WRAPPER_BWD_PASSES * bytes * weights,
  };
}
