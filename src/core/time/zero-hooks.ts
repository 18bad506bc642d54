/**
 * Host work of an engine's ZeRO hooks in one micro-batch (its profile's `zeroHooks`: DeepSpeed's, counted in
 * engines/hf/memory.ts): ZeRO-3 gathers and releases every submodule that holds a partitioned parameter in
 * forward (and the recompute of full checkpointing) and again in backward; ZeRO-2 and ZeRO-3 move every trainable
 * parameter's gradient into the reduce bucket from its hook. A submodule is what holds the parameter: each
 * linear (and, under LoRA, its lora_A and lora_B), each expert of a per-expert loop (transformers 4.x experts are
 * nn.Linear modules of their own), and one module of 3-D expert weights where the experts are grouped.
 */
import type { EstimateOptions, LoraTarget } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { ModelFacts } from './model-facts.js';

export interface ZeroHookOps {
  /** Forward ops outside a per-expert loop (the host runs ahead of the GPU there). */
  fwdOps: number;
  /** Forward ops of the experts' own modules inside a per-expert loop (the loop syncs once per expert). */
  loopFwdOps: number;
  /** Backward ops: the modules' gathers and releases and the gradient hooks. */
  bwdOps: number;
  /** ZeRO-3: the share of bwdOps that belongs to the experts of a per-expert loop (0 otherwise). */
  loopBwdOps: number;
}

const NONE: ZeroHookOps = { fwdOps: 0, loopFwdOps: 0, bwdOps: 0, loopBwdOps: 0 };
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

/**
 * The ZeRO hooks' eager ops of one micro-batch on this rank's `layersHere` layers; `loop` with `hit` experts
 * per MoE layer when the experts run in a per-expert loop; `dp` data-parallel ranks share the gradients.
 */
export function zeroHookOps(
  m: ModelFacts,
  o: EstimateOptions,
  layersHere: number,
  loop: boolean,
  hit: number,
  dp = 1,
): ZeroHookOps {
  const hooks = FRAMEWORKS[o.framework].zeroHooks;
  if (!hooks || o.zero < 2 || o.method === 'inference') return NONE;
  const lora = o.method === 'lora' || o.method === 'qlora';
  const targets = new Set<LoraTarget>(o.loraTargets);
  const scale = m.layers > 0 ? layersHere / m.layers : 0;
  let modules = 0;
  let bareModules = 0;
  let loopModules = 0;
  let bareLoopModules = 0;
  let loopGrads = 0;
  let grads = 0;
  for (const g of m.arch.groups) {
    if (g.name === 'vision') continue;
    const dense = g.linears.filter((l) => l.copies <= 1);
    const experts = g.linears.filter((l) => l.copies > 1);
    const adaptedDense = lora ? dense.filter((l) => targets.has(l.role as LoraTarget)).length : 0;
    const adaptedExperts = lora
      ? experts.filter((l) => targets.has(l.role as LoraTarget)).length
      : 0;
    const layers = g.count * scale;
    // A PEFT-adapted linear adds its lora_A and lora_B modules, each one parameter with a gradient.
    modules += layers * (dense.length + 2 * adaptedDense);
    const denseMlp = dense.some((l) => DENSE_MLP_ROLES.has(l.role)) ? 1 : 0;
    bareModules +=
      layers * (LAYER_BARE_MODULES + g.normsPerLayer + denseMlp + LORA_BARE_MODULES * adaptedDense);
    grads += layers * (lora ? 2 * adaptedDense : dense.length + NORMS_PER_LAYER);
    if (experts.length === 0) continue;
    if (loop) {
      loopModules += layers * hit * (experts.length + 2 * adaptedExperts);
      bareLoopModules += layers * hit * (BARE_EXPERT_MODULES + LORA_BARE_MODULES * adaptedExperts);
      loopGrads += layers * hit * (lora ? 2 * adaptedExperts : experts.length);
    } else {
      modules += layers;
      const adaptedParams = Math.min(GROUPED_EXPERT_PARAMS, adaptedExperts);
      grads += layers * (lora ? 2 * adaptedParams : GROUPED_EXPERT_PARAMS);
    }
  }
  const moduleOps = o.zero === 3 ? hooks.moduleOps : 0;
  const gradOps =
    o.zero === 3
      ? hooks.gradOps[3] + hooks.reduceOps3.perParam + hooks.reduceOps3.perRank * dp
      : hooks.gradOps[2];
  const bareOps = o.zero === 3 ? BARE_MODULE_OPS * bareLoopModules : 0;
  const layerBareOps = o.zero === 3 ? BARE_MODULE_OPS * bareModules : 0;
  const loopBwdOps = moduleOps * loopModules + bareOps + gradOps * loopGrads;
  return {
    fwdOps: moduleOps * modules + layerBareOps,
    loopFwdOps: moduleOps * loopModules + bareOps,
    bwdOps: moduleOps * modules + layerBareOps + gradOps * grads + loopBwdOps,
    loopBwdOps: o.zero === 3 ? loopBwdOps : 0,
  };
}
