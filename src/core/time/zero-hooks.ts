/**
 * Host work of an engine's ZeRO hooks in one micro-batch (its profile's `zeroHooks`: DeepSpeed's, counted in
 * engines/hf/memory.ts): ZeRO-3 gathers and releases every submodule that holds a partitioned parameter in
 * forward (and the recompute of full checkpointing) and again in backward; ZeRO-2 and ZeRO-3 move every trainable
 * parameter's gradient into the reduce bucket from its hook. A submodule is what holds the parameter: each
 * linear (and, under LoRA, its lora_A and lora_B), each expert of a per-expert loop (transformers 4.x experts are
 * nn.Linear modules of their own), and one module of 3-D expert weights where the experts are grouped. A sparse MoE
 * block the engine's DeepSpeed marks as a leaf module (zeroHooks.leafMoe) is one submodule holding all its experts,
 * its router and its shared expert, none of them hooked.
 */
import type { EstimateOptions, LoraTarget } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { ModelFacts } from './model-facts.js';
import type { LayerGroup, Linear } from '../model/arch.js';
import {
  backwardRegatherShares,
  gatherCollectives,
  noGathers,
  type GatherCollectives,
  type RegatherShares,
} from './zero-collectives.js';

export interface ZeroHookOps {
  /** Forward ops outside a per-expert loop (the host runs ahead of the GPU there). */
  fwdOps: number;
  /** Forward ops of the experts' own modules inside a per-expert loop (the loop syncs once per expert). */
  loopFwdOps: number;
  /** Backward ops: the modules' gathers and releases and the gradient hooks. */
  bwdOps: number;
  /** ZeRO-3: the share of bwdOps that belongs to the experts of a per-expert loop (0 otherwise). */
  loopBwdOps: number;
  /**
   * ZeRO-3 with a measured host price (the profile's zeroHooks.host3): the hooks' host seconds besides the ops
   * above, split as they are (forward, in a loop, backward, the loop's share of backward).
   */
  fwdSeconds: number;
  loopFwdSeconds: number;
  bwdSeconds: number;
  loopBwdSeconds: number;
}

const NONE: ZeroHookOps = {
  fwdOps: 0,
  loopFwdOps: 0,
  bwdOps: 0,
  loopBwdOps: 0,
  fwdSeconds: 0,
  loopFwdSeconds: 0,
  bwdSeconds: 0,
  loopBwdSeconds: 0,
};
type Host3 = NonNullable<
  NonNullable<(typeof FRAMEWORKS)[keyof typeof FRAMEWORKS]['zeroHooks']>['host3']
>;
// Norm weights per decoder layer, trained by a full fine-tune: input_layernorm and post_attention_layernorm
// (https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/models/qwen2_moe/modeling_qwen2_moe.py
// Qwen2MoeDecoderLayer; the Llama-style layers alike).
const NORMS_PER_LAYER = 2;
// Transformers 5.x grouped experts hold gate_up_proj and down_proj as two 3-D parameters (Qwen2MoeExperts,
// https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/models/qwen2_moe/modeling_qwen2_moe.py;
// PEFT's ParamWrapper adapts each with its own lora_A and lora_B).
const GROUPED_EXPERT_PARAMS = 2;
// ZeRO-3 hooks every submodule, parameters or not (parameter_offload.py _register_deepspeed_module recurses into all
// children, DeepSpeed v0.16.5): a transformers 4.x expert is its MLP module (Qwen2MoeMLP, Qwen3MoeMLP) holding the
// three linears and its activation module (ACT2FN's nn.SiLU), two modules without parameters. Each still wraps its
// outputs in PreBackwardFunctionForModule and its inputs in PostBackwardFunctionModule (an autograd node that
// detaches the tensor) and makes the current stream wait for the gather stream in fetch_sub_module
// (partitioned_param_coordinator.py): 3 ops per pass, the same 3 in backward (the two nodes, the wait).
// https://github.com/deepspeedai/DeepSpeed/blob/20f988eade5217ab0045ba1681030f3d255d67e3/deepspeed/runtime/zero/parameter_offload.py
const BARE_EXPERT_MODULES = 2;
const BARE_MODULE_OPS = 3;
// The same hooks fire on a decoder layer's own modules that gather nothing: the layer, its attention module, its MLP
// (or sparse MoE) block and its norms (their weights sit under stage3_param_persistence_threshold, so the fetch only
// waits) (https://github.com/huggingface/transformers/blob/v4.51.3/src/transformers/models/qwen2_moe/modeling_qwen2_moe.py
// Qwen2MoeDecoderLayer; the Llama-style layers alike), and on a dense MLP's activation module (ACT2FN).
const LAYER_BARE_MODULES = 3;
const DENSE_MLP_ROLES = new Set(['gate', 'up', 'down']);
// PEFT's LoRA wraps each adapted linear in a module of its own (lora.Linear, whose forward calls base_layer, then
// lora_dropout[adapter], lora_A[adapter] and lora_B[adapter]); the wrapper holds no parameter of its own and the
// dropout module (nn.Dropout, or nn.Identity at lora_dropout 0) none at all: two more hooked modules per adapted
// linear (https://github.com/huggingface/peft/blob/v0.11.1/src/peft/tuners/lora/layer.py LoraLayer.update_layer,
// Linear.forward).
const LORA_BARE_MODULES = 2;

/** Hooked modules, gradients and what a per-expert loop holds of them, summed over the groups. */
export interface HookCounts {
  modules: number;
  bareModules: number;
  loopModules: number;
  bareLoopModules: number;
  grads: number;
  loopGrads: number;
}

/**
 * One group's hooked modules and gradients over `layers` layers: `lora` with its adapted roles `targets`; `loop` with
 * `hit` experts a layer when the experts run in a per-expert loop; `leaf` when ZeRO-3 treats the sparse MoE block as
 * a leaf module (the engine's zeroHooks.leafMoe).
 */
function groupHooks(
  c: HookCounts,
  g: LayerGroup,
  layers: number,
  lora: boolean,
  targets: ReadonlySet<LoraTarget>,
  run: { loop: boolean; hit: number; leaf: boolean },
): void {
  const adapted = (ls: readonly Linear[]) =>
    lora ? ls.filter((l) => targets.has(l.role as LoraTarget)).length : 0;
  const dense = g.linears.filter((l) => l.copies <= 1);
  const experts = g.linears.filter((l) => l.copies > 1);
  const adaptedExperts = adapted(experts);
  // A leaf MoE block: the router and the shared expert sit inside it, gathered with the block and not hooked.
  const leaf = run.leaf && experts.length > 0;
  const inBlock = (l: Linear) => l.role === 'router' || DENSE_MLP_ROLES.has(l.role);
  const hooked = leaf ? dense.filter((l) => !inBlock(l)) : dense;
  const adaptedHooked = adapted(hooked);
  // A PEFT-adapted linear adds its lora_A and lora_B modules, each one parameter with a gradient; a leaf block
  // gathers its parameters as one more module, and is no longer one that gathers nothing.
  c.modules += layers * (hooked.length + 2 * adaptedHooked + (leaf ? 1 : 0));
  // A dense MLP's activation module; beside routed experts, the shared expert is an MLP module of its own too.
  const denseMlp = hooked.some((l) => DENSE_MLP_ROLES.has(l.role)) ? 1 : 0;
  const sharedMlp = experts.length > 0 ? denseMlp : 0;
  const layerBare = LAYER_BARE_MODULES - (leaf ? 1 : 0);
  c.bareModules +=
    layers *
    (layerBare + g.normsPerLayer + denseMlp + sharedMlp + LORA_BARE_MODULES * adaptedHooked);
  c.grads += layers * (lora ? 2 * adapted(dense) : dense.length + NORMS_PER_LAYER);
  if (experts.length === 0) return;
  const expertGrads = lora ? 2 * adaptedExperts : experts.length;
  if (leaf && run.loop) {
    // The block's backward hook reduces every expert's gradients (a zero one for an expert no token reached).
    c.grads += layers * experts[0]!.copies * expertGrads;
  } else if (run.loop) {
    c.loopModules += layers * run.hit * (experts.length + 2 * adaptedExperts);
    c.bareLoopModules +=
      layers * run.hit * (BARE_EXPERT_MODULES + LORA_BARE_MODULES * adaptedExperts);
    c.loopGrads += layers * run.hit * expertGrads;
  } else {
    // The grouped experts' module, hooked unless it sits inside a leaf block.
    if (!leaf) c.modules += layers;
    const adaptedParams = Math.min(GROUPED_EXPERT_PARAMS, adaptedExperts);
    c.grads += layers * (lora ? 2 * adaptedParams : GROUPED_EXPERT_PARAMS);
  }
}

/**
 * The ZeRO hooks' eager ops of one micro-batch on this rank's `layersHere` layers; `loop` with `hit` experts
 * per MoE layer when the experts run in a per-expert loop; `dp` data-parallel ranks share the gradients;
 * `moeHooked` when the run's DeepSpeed hooked the modules inside the MoE blocks its engine marks as leaves.
 */
export function zeroHookOps(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  loop: boolean,
  hit: number,
  dp = 1,
  moeHooked = false,
  grads?: { numel: number; autoBuckets: boolean },
): ZeroHookOps {
  return zeroHookOpsAt(zeroHookCounts(m, o, layersHere, loop, hit, moeHooked, grads), dp);
}

/**
 * What zeroHookOps counts before the data-parallel degree: the hooked modules and gradients, and ZeRO-3's reduces
 * and gathers where more than one rank shares the gradients (null: no hooks). It reads the options' framework,
 * ZeRO stage, method, LoRA targets and rank and checkpointing, never the GPU count.
 */
export interface ZeroHookCounts {
  o: EstimateOptions;
  c: HookCounts;
  /** ZeRO-3 at a measured host price: its reduces and gathers on more than one rank. */
  host3: { reduces: number; gathers: GatherCollectives; bwdGathers: RegatherShares } | null;
}

export function zeroHookCounts(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  loop: boolean,
  hit: number,
  moeHooked = false,
  grads?: { numel: number; autoBuckets: boolean },
): ZeroHookCounts | null {
  const hooks = FRAMEWORKS[o.framework].zeroHooks;
  if (!hooks || o.zero < 2 || o.method === 'inference') return null;
  const lora = o.method === 'lora' || o.method === 'qlora';
  const targets = new Set<LoraTarget>(o.loraTargets);
  const scale = m.layers > 0 ? layersHere / m.layers : 0;
  const leaf = o.zero === 3 && !moeHooked && (hooks.leafMoe?.includes(m.modelType) ?? false);
  const c: HookCounts = {
    modules: 0,
    bareModules: 0,
    loopModules: 0,
    bareLoopModules: 0,
    grads: 0,
    loopGrads: 0,
  };
  for (const g of m.arch.groups) {
    if (g.name === 'vision') continue;
    groupHooks(c, g, g.count * scale, lora, targets, { loop, hit, leaf });
  }
  if (o.zero !== 3 || !hooks.host3) return { o, c, host3: null };
  const h = hooks.host3;
  const auto = grads?.autoBuckets === true;
  const h2 = m.hidden * m.hidden;
  const bucket = auto ? h.reduceBucket.autoPerHidden2 * h2 : h.reduceBucket.elements;
  const buckets = {
    prefetch: auto ? h.prefetchBucket.autoPerHidden2 * h2 : h.prefetchBucket.elements,
    persistence: auto ? h.persistence.autoPerHidden * m.hidden : h.persistence.elements,
  };
  return {
    o,
    c,
    host3: {
      // This rank's layers' share of the trainable gradients, one reduce-scatter a bucket (none on one rank).
      reduces: grads ? Math.ceil((grads.numel * scale) / bucket) : 0,
      gathers: gatherCollectives(m, o, layersHere, buckets, {
        loop: loop && !leaf,
        hit,
        expertLinears: loop,
      }),
      // Under full recompute backward reuses the recompute's gathers (measured: zero3-collectives-cpu.json) where the
      // reuse window kept them, and gathers again the weights it released (zero-collectives.ts backwardRegatherShares).
      bwdGathers: bwdGatherShares(m, o, loop && !leaf),
    },
  };
}

/**
 * The share of each pass's collectives the backward issues again: all of them without full recompute (the backward
 * gathers what the forward released), under it those the engine's reuse window released after the recompute (none
 * where the engine states no window: the backward reuses every gather).
 */
function bwdGatherShares(m: ModelFacts, o: EstimateOptions, expertLoop: boolean): RegatherShares {
  if (o.checkpointing !== 'full' && o.checkpointing !== 'offload') return { outside: 1, loop: 1 };
  const reuse = FRAMEWORKS[o.framework].zeroHooks?.maxReuseDistance;
  return reuse === undefined
    ? { outside: 0, loop: 0 }
    : backwardRegatherShares(m, o, reuse, expertLoop);
}

/** zeroHookOps of `counts` (zeroHookCounts) on `dp` data-parallel ranks. */
export function zeroHookOpsAt(counts: ZeroHookCounts | null, dp: number): ZeroHookOps {
  if (!counts) return NONE;
  const { o, c, host3 } = counts;
  const hooks = FRAMEWORKS[o.framework].zeroHooks!;
  if (host3) {
    const multi = dp > 1;
    return measured3(hooks.host3!, hooks.reduceOps3.perRank, c, dp, {
      reduces: multi ? host3.reduces : 0,
      gathers: multi ? host3.gathers : noGathers(),
      bwdGathers: host3.bwdGathers,
    });
  }
  const moduleOps = o.zero === 3 ? hooks.moduleOps : 0;
  const gradOps =
    o.zero === 3
      ? hooks.gradOps[3] + hooks.reduceOps3.perParam + hooks.reduceOps3.perRank * dp
      : hooks.gradOps[2];
  const bareOps = o.zero === 3 ? BARE_MODULE_OPS * c.bareLoopModules : 0;
  const layerBareOps = o.zero === 3 ? BARE_MODULE_OPS * c.bareModules : 0;
  const loopBwdOps = moduleOps * c.loopModules + bareOps + gradOps * c.loopGrads;
  return {
    fwdOps: moduleOps * c.modules + layerBareOps,
    loopFwdOps: moduleOps * c.loopModules + bareOps,
    bwdOps: moduleOps * c.modules + layerBareOps + gradOps * c.grads + loopBwdOps,
    loopBwdOps: o.zero === 3 ? loopBwdOps : 0,
    fwdSeconds: 0,
    loopFwdSeconds: 0,
    bwdSeconds: 0,
    loopBwdSeconds: 0,
  };
}

/**
 * A coalesced all-gather's per-rank host seconds on `dp` ranks: the slices beyond the measurement's `h.ranks` ranks
 * (the flat buffer's per group, each parameter's in `wait`) and each parameter's `record_stream` per rank, which the
 * measurement's device (synchronized, no streams) skipped. Neither launches a kernel, so inside a per-expert loop
 * they cost their host time, not the synced loop's rate.
 */
function coalescedSeconds(h: Host3, dp: number, c: { groups: number; params: number }): number {
  const p = h.coalescedPerRank;
  const slices = Math.max(0, dp - h.ranks) * (p.bufferSlices * c.groups + p.paramSlices * c.params);
  return slices * p.sliceSeconds + dp * c.params * p.recordStreamSeconds;
}

/**
 * ZeRO-3's hooks at a measured host price: each hooked module pass (gathering a parameter or not) and each gradient
 * costs its measured host seconds, plus the stream and event calls the measurement's device skipped as ops of their
 * own, a gathering module's all-gather's CUDA calls and a coalesced gather's per-rank slicing and stream records,
 * and the reduce's slicing for the ranks beyond the measurement's.
 */
function measured3(
  h: Host3,
  perRank: number,
  c: HookCounts,
  dp: number,
  coll: { reduces: number; gathers: GatherCollectives; bwdGathers: RegatherShares },
): ZeroHookOps {
  const s = h.streamOps;
  const gradOps = s.gradient + perRank * Math.max(0, dp - h.ranks);
  // The all-gathers' CUDA calls and per-rank work, in the passes that gather (forward and recompute; backward
  // without recompute).
  const g = coll.gathers;
  const gatherOps = h.collectiveOps * g.outside;
  const loopGatherOps = h.collectiveOps * g.loop;
  const gatherSeconds = coalescedSeconds(h, dp, g.coalesced.outside);
  const loopGatherSeconds = coalescedSeconds(h, dp, g.coalesced.loop);
  const hookOps = s.gathering * c.modules + s.bare * c.bareModules;
  const loopOps = s.gathering * c.loopModules + s.bare * c.bareLoopModules;
  const bwdGather = coll.bwdGathers.outside;
  const bwdLoopGather = coll.bwdGathers.loop;
  const hookSeconds = h.gathering * c.modules + h.bare * c.bareModules;
  const loopHookSeconds = h.gathering * c.loopModules + h.bare * c.bareLoopModules;
  // Each reduce-scatter's CUDA calls, in backward with the gradients that filled its bucket.
  const reduceOps = h.collectiveOps * coll.reduces;
  const loopShare = c.loopGrads > 0 ? c.loopGrads / (c.grads + c.loopGrads) : 0;
  const loopBwdOps =
    loopOps + bwdLoopGather * loopGatherOps + gradOps * c.loopGrads + reduceOps * loopShare;
  const loopBwdSeconds =
    loopHookSeconds + bwdLoopGather * loopGatherSeconds + h.gradient * c.loopGrads;
  return {
    fwdOps: hookOps + gatherOps,
    loopFwdOps: loopOps + loopGatherOps,
    bwdOps:
      hookOps +
      bwdGather * gatherOps +
      gradOps * c.grads +
      reduceOps * (1 - loopShare) +
      loopBwdOps,
    loopBwdOps,
    fwdSeconds: hookSeconds + gatherSeconds,
    loopFwdSeconds: loopHookSeconds + loopGatherSeconds,
    bwdSeconds: hookSeconds + bwdGather * gatherSeconds + h.gradient * c.grads + loopBwdSeconds,
    loopBwdSeconds,
  };
}
