/**
 * What each engine can run, kept as data: one profile per engine, each rule citing the engine's docs.
 * The planner offers a configuration only on engines whose profile accepts it, and the plan's options
 * carry the engine's memory profile (`framework`), its master-weight copy and optimizer-in-backward, so
 * that `vramplan estimate` with a plan's `options` reproduces its bytes and `engineOf(options)` (engine.ts)
 * gives back the plan's engine. A combination no engine runs is pruned with reason `no-engine`.
 */
import type { Engine } from '../../schema/engine.js';
import {
  refusesShardedBnb,
  refusesShardedQuantized,
  roundsStochastically,
  type EngineProfile,
  type LoraRecipe,
} from './profile.js';
import { ENGINE_FAMILY, ENGINE_PROFILES, ENGINE_RUNS, FRAMEWORKS } from './store.js';
import { engineOf } from './engine.js';
import {
  isFloat8Compute,
  type EstimateOptions,
  type Framework,
  type LoraTarget,
} from '../../schema/estimate.js';

export { ENGINE_FAMILY, ENGINE_PROFILES };

/** The engines a family or engine name stands for. */
export const enginesNamed = (name: Framework | Engine): readonly Engine[] =>
  name in ENGINE_FAMILY ? ENGINE_FAMILY[name as Framework] : [name as Engine];

export { BNB_OPTIMIZERS } from './profile.js';

/** What engineRejects answers when asked not to explain (the planner only tests for null). */
export const REJECTED = 'rejected';

/**
 * Why `engine` cannot run `o` (a short rule, quoting the profile), or null when it can. `dp` is the
 * data-parallel degree and `accum` the micro-batches per optimizer step. With `explain` false a rejection
 * is REJECTED instead of a sentence built from the profile: the planner asks tens of thousands of times and
 * reads only null. `p` is what vramplan writes for the engine unless given (estimate passes what it runs: runs.ts).
 */
export function engineRejects(
  engine: Engine,
  o: EstimateOptions,
  dp: number,
  accum: number,
  explain = true,
  p: EngineProfile = ENGINE_PROFILES[engine],
): string | null {
  if (!p.methods.includes(o.method)) return explain ? `runs ${p.methods.join('/')} only` : REJECTED;
  if (o.objective !== undefined && !p.objectives.includes(o.objective))
    return explain ? `runs objectives ${p.objectives.join('/')} only` : REJECTED;
  if (o.liger && !p.liger) return 'no Liger kernels';
  if (o.tiledMlp && !p.tiledMlp) return 'no tiled MLP';
  if (o.modulesToSave && !p.modulesToSave) return 'no modules_to_save (full copies beside LoRA)';
  if (dp > p.maxDp) return 'runs on one GPU';
  if (o.tp > 1 && !p.tp) return 'no tensor parallelism';
  if (o.pp > 1 && !p.pp) return 'no pipeline parallelism';
  if (o.cp > 1 && !p.cp) return 'no context parallelism';
  if (!p.zero.includes(o.zero)) return explain ? `ZeRO stages ${p.zero.join('/')} only` : REJECTED;
  if (o.offload !== 'none' && !(p.offload[o.offload] ?? []).includes(o.zero))
    return explain ? `no ${o.offload} offload at ZeRO-${o.zero}` : REJECTED;
  if (o.method === 'full') {
    if (!p.fullWeights.includes(o.weights))
      return explain ? `full fine-tunes ${p.fullWeights.join('/')}` : REJECTED;
  } else {
    if (!p.baseWeights.includes(o.weights))
      return explain ? `no ${o.weights} weights (runs ${p.baseWeights.join(', ')})` : REJECTED;
    if (refusesShardedQuantized(p, o, dp))
      return explain ? `no ${o.weights} weights under sharding` : REJECTED;
  }
  // --gpu-layers splits layers between GPU and host: llama.cpp's -ngl only.
  if (o.gpuLayers !== undefined && !FRAMEWORKS[p.framework].layerOffload)
    return explain ? 'no --gpu-layers (llama.cpp only)' : REJECTED;
  // --n-cpu-moe: llama.cpp's CPU buffer override of the expert tensors, an engine that splits weights with the host.
  if (o.cpuMoeLayers !== undefined && !FRAMEWORKS[p.framework].layerOffload)
    return explain ? 'no --n-cpu-moe (llama.cpp only)' : REJECTED;
  // --ep / --dp-attention: engines whose memory profile runs expert parallelism (its expertParallel field).
  if (((o.ep ?? 1) > 1 || o.dpAttention) && !FRAMEWORKS[p.framework].expertParallel)
    return explain ? 'no expert parallelism or DP attention' : REJECTED;
  if (o.speculative && !(FRAMEWORKS[p.framework].speculative ?? []).includes(o.speculative))
    return explain ? `no ${o.speculative} speculative decoding` : REJECTED;
  if (
    o.maxLoras !== undefined &&
    !FRAMEWORKS[p.framework].multiLora &&
    !(o.maxLoras === 1 && FRAMEWORKS[p.framework].unmergedLora)
  )
    return explain ? 'no multi-LoRA serving' : REJECTED;
  if (!p.checkpointing.includes(o.checkpointing))
    return explain ? `checkpointing ${p.checkpointing.join('/')} only` : REJECTED;
  if (!p.attention.includes(o.attention))
    return explain ? `attention ${p.attention.join('/')} only` : REJECTED;
  if (!p.optimizers.includes(o.optimizer))
    return explain ? `no ${o.optimizer} optimizer` : REJECTED;
  if (o.offload !== 'none' && !p.offloadOptimizers.includes(o.optimizer))
    return explain ? `no host-side ${o.optimizer} step` : REJECTED;
  if (refusesShardedBnb(p, o, dp)) return explain ? `no ${o.optimizer} under sharding` : REJECTED;
  if (isFloat8Compute(o.compute) && !(p.float8 ?? []).includes(o.compute))
    return explain ? `no ${o.compute} training` : REJECTED;
  if (o.optimizerInBackward && (!p.optimizerInBackward || accum > 1 || o.method !== 'full'))
    return 'no optimizer-in-backward here';
  return null;
}

/**
 * Whether the planner leaves a one-rank layout sharded without offload to the engine's ZeRO-0 (or to other
 * engines): it runs, but partitions nothing over one rank. Everywhere but the stage an engine without ZeRO-0 trains
 * one GPU at (EngineProfile.oneRankZero). A search choice, not a refusal: engineRejects runs it.
 */
export function searchSkipsOneRank(
  engine: Engine,
  dp: number,
  zero: EstimateOptions['zero'],
  offload: EstimateOptions['offload'],
): boolean {
  return dp === 1 && zero > 0 && offload === 'none' && ENGINE_PROFILES[engine].oneRankZero !== zero;
}

/**
 * Whether `engine` refuses every configuration of `method` and `objective` on a layout: the checks of
 * engineRejects that read only these, the data-parallel degree, TP, PP, ZeRO stage and offload (so true
 * implies engineRejects is not null; the planner asks once per layout shape instead of per configuration).
 */
export function rejectsLayout(
  engine: Engine,
  method: EstimateOptions['method'],
  objective: EstimateOptions['objective'],
  dp: number,
  tp: number,
  pp: number,
  zero: EstimateOptions['zero'],
  offload: EstimateOptions['offload'],
): boolean {
  const p = ENGINE_PROFILES[engine];
  return (
    !p.methods.includes(method) ||
    (objective !== undefined && !p.objectives.includes(objective)) ||
    dp > p.maxDp ||
    (tp > 1 && !p.tp) ||
    (pp > 1 && !p.pp) ||
    !p.zero.includes(zero) ||
    (offload !== 'none' && !(p.offload[offload] ?? []).includes(zero))
  );
}

/** The estimate options a configuration takes on `engine` (its memory profile and master-weight copy). */
export function onEngine(o: EstimateOptions, engine: Engine): EstimateOptions {
  return engineFieldsInto({ ...o }, engine);
}

/** The contract's LoRA targets (schema/estimate.ts defaultOptions): an engine whose recipes are not recorded. */
const CONTRACT_LORA: LoraRecipe = {
  allLinear: false,
  targets: ['q', 'v'],
  source: 'docs/DESIGN.md',
};

/**
 * onEngine in place: writes the engine's fields into `out` (the planner's scratch options, so its hot loops
 * allocate nothing), reading the configuration's own sequence/loss-parallel flags and LoRA targets from
 * `base` (default `out`) and the tensor-parallel degree from `out`.
 */
export function engineFieldsInto(
  out: EstimateOptions,
  engine: Engine,
  base: EstimateOptions = out,
): EstimateOptions {
  const p = ENGINE_PROFILES[engine];
  const sixteen = base.weights === 'bf16' || base.weights === 'fp16';
  const tpExtras = p.tpShardsNormsAndLoss && out.tp > 1;
  const sequenceParallel = base.sequenceParallel || tpExtras;
  const lossParallel = base.lossParallel || tpExtras;
  out.framework = p.framework;
  out.masterWeights = p.masterWeights && base.method === 'full' && sixteen;
  out.sequenceParallel = sequenceParallel;
  out.lossParallel = lossParallel;
  // An engine with no loss switch runs its own loss kernel (runs.ts `loss`): the plan counts that one; one whose
  // recipes chunk the loss (chunkedLossByDefault) chunks it (defaults.ts keeps a given --chunked-loss); any
  // other keeps the configuration's (a scratch `out` may hold the previous engine's).
  const loss = ENGINE_RUNS[engine].loss;
  out.chunkedLoss = loss
    ? loss.chunked(base)
    : base.chunkedLoss || p.chunkedLossByDefault !== undefined;
  // A planner configuration whose scenario names no LoRA targets carries an empty list (plan/configs.ts):
  // each engine trains its own recipes' targets (profile `loraTargets`).
  if (base.loraTargets.length === 0) {
    // The recipe's list, shared (read-only: nothing writes into an options' targets).
    const adapter = base.method === 'lora' || base.method === 'qlora';
    const r = (adapter ? p.loraTargets : undefined) ?? CONTRACT_LORA;
    out.loraTargets = r.targets as LoraTarget[];
    out.loraAllLinear = r.allLinear;
  }
  return out;
}

/** The plan's engine writes an optimizer that rounds bf16 weight updates stochastically (torchao's bf16_stochastic_round). */
export function stochasticallyRounded(o: EstimateOptions): boolean {
  return roundsStochastically(ENGINE_PROFILES[engineOf(o)], o);
}
