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

// A parametrized weight is rebuilt at every access unless a parametrize.cached() context is open
// (https://github.com/pytorch/pytorch/blob/v2.8.0/torch/nn/utils/parametrize.py `get_parametrized`), and PEFT's
// _LoraParameterProxy.forward opens one around its own W + ΔW only (peft==0.17.0 wheel, tuners/lora/layer.py). A loop
// that reads `self.gate_up_proj[expert_idx]` and `self.down_proj[expert_idx]` once per hit expert (transformers==4.55.0
// wheel, models/gpt_oss/modeling_gpt_oss.py GptOssExperts.forward, `if self.training`) builds W + ΔW over all of the
// layer's experts once per hit expert: reads W and ΔW, writes W' (3 weight-sized passes).
const ACCESS_FWD_PASSES = 3;
// In backward each access's index gradient is a zero-filled W'-sized tensor with the expert's slice put in
// (`index.Tensor`: index_backward(grad.new_zeros_symint(self.sym_sizes(), ...)), tools/autograd/derivatives.yaml,
// https://github.com/pytorch/pytorch/blob/v2.8.0/tools/autograd/derivatives.yaml), which autograd sums into W''s
// gradient (reads the running sum and the new tensor, writes the sum): 4 passes an access past the first, whose
// zero-filled tensor is the gradient deltaWork's backward already writes once.
const ACCESS_BWD_PASSES = 4;

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

/**
 * ParamWrapper on the fused experts' gate_up_proj and down_proj of `adaptedLayers` of the model's MoE layers (PEFT's
 * target_parameters naming those layers; TimeOptions.expertParamLoraLayers), beside the options' own targets:
 * deltaWork over this rank's share of those layers, each weight rebuilt `accesses` times a pass (the hit experts
 * where the engine loops over them, else 1: ACCESS_* above). `layers`: this rank's MoE layers. Without
 * `adaptedLayers` the options' own targets, built once a forward (deltaWork).
 */
export function expertParamLoraWork(
  m: ModelFacts,
  o: EstimateOptions,
  tp: number,
  layers: number,
  eb: number,
  adaptedLayers: number | undefined,
  accesses: number,
) {
  if (adaptedLayers === undefined) return deltaWork(m, o, true, tp, layers, eb);
  if (m.moeLayers === 0 || adaptedLayers <= 0) return NO_DELTA;
  const frac = Math.min(1, adaptedLayers / m.moeLayers);
  const targets = [...new Set([...o.loraTargets, 'gate', 'up', 'down'] as const)];
  const base = deltaWork(m, { ...o, loraTargets: targets }, true, tp, layers * frac, eb);
  if (base.share === 0) return NO_DELTA;
  const bytes = o.compute === 'fp32' ? 4 : eb;
  const weights = (m.experts * m.expertWeightsPerLayer * layers * frac * base.share) / tp;
  const again = Math.max(0, accesses - 1);
  return {
    // The weight gradient of W' covers the adapted layers' share of the experts' GEMMs (train-work.ts bwdFlops).
    share: base.share * frac,
    fwdFlops: base.fwdFlops,
    fwdBytes: base.fwdBytes + again * ACCESS_FWD_PASSES * bytes * weights,
    bwdFlops: base.bwdFlops,
    bwdBytes: base.bwdBytes + again * ACCESS_BWD_PASSES * bytes * weights,
  };
}
