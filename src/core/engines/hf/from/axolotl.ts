/**
 * axolotl YAML → contract flags. Keys: https://docs.axolotl.ai/docs/config-reference.html
 * (schema: https://github.com/axolotl-ai-cloud/axolotl/tree/main/src/axolotl/utils/schemas).
 */
import { mapTrlObjective } from './trl-objective.js';
import {
  FieldReader,
  FromError,
  type FromFlags,
  type FromMapping,
  hfOptimizer,
  modulesToSave,
  parameterTargetsOf,
  targetsOf,
  type UpstreamKeys,
  transformersLoadOf,
  loraDropoutInto,
} from '../../../from/common.js';
import { mapFsdp } from './fsdp.js';
import { attentionOf } from './hf-args.js';

const MEMORY_KEYS = [
  'base_model',
  'load_in_8bit',
  'load_in_4bit',
  'adapter',
  'lora_r',
  'lora_dropout',
  'lora_target_linear',
  'lora_target_modules',
  'lora_target_parameters',
  'lora_modules_to_save',
  'sequence_len',
  'micro_batch_size',
  'gradient_accumulation_steps',
  'optimizer',
  'gradient_checkpointing',
  'activation_offloading',
  'flash_attention',
  'sdp_attention',
  'xformers_attention',
  'eager_attention',
  'attn_implementation',
  'bf16',
  'fp16',
  'deepspeed',
  'fsdp',
  'fsdp_config',
  'torch_compile',
  'liger_fused_linear_cross_entropy',
  'liger_rope',
  'liger_rms_norm',
  'liger_glu_activation',
  'liger_swiglu',
  'cut_cross_entropy',
  'bnb_config_kwargs',
  'context_parallel_size',
  'tensor_parallel_size',
  'qlora_sharded_model_loading',
] as const;

/** Keys axolotl has that change memory and vramplan does not model (each becomes a warning). */
const NOT_MODELLED: Record<string, string> = {
  unfrozen_parameters:
    'only the matching parameters train (not modelled: estimated as full fine-tuning)',
  peft_use_dora: 'DoRA keeps a magnitude vector and an extra weight-norm pass (not modelled)',
  relora: 'ReLoRA merges adapters periodically (estimated as plain LoRA)',
  reward_model:
    'reward-model training on the causal LM as loaded (model_type is not a *ForSequenceClassification, so lm_head stays; estimated as SFT)',
  sequence_parallel_degree: 'sequence parallelism (see context_parallel_size)',
  fp8: 'FP8 training beside an adapter (estimated in bf16: --compute fp8 is full fine-tuning)',
  qat: 'quantization-aware training (not modelled)',
};

/**
 * A warning per key axolotl has that vramplan does not model. fp8 is modelled for a full fine-tune: `fp8: true`
 * hands Accelerate torchao's tensorwise float8 recipe (docs.axolotl.ai mixed_precision "FP8").
 */
const notModelled = (r: FieldReader, flags: FromFlags): string[] =>
  Object.entries(NOT_MODELLED)
    .filter(
      ([key]) =>
        r.has(key) &&
        r.raw(key) !== false &&
        !(key === 'fp8' && flags.compute === 'fp8') &&
        !(key === 'reward_model' && flags.objective === 'reward'),
    )
    .map(([key, why]) => `${key}: ${why}`);

// Long on purpose: one mapping per axolotl key, in the order of its config reference; each line stands alone.
/**
 * lora_target_linear / lora_target_modules / lora_target_parameters (fused 3-D experts: gate/up/down, which
 * all-linear already counts) as --lora-targets; undefined when none is set.
 */
function loraTargetsOf(r: FieldReader, extra: string[], warnings: string[]): string | undefined {
  if (r.bool('lora_target_linear')) return ['all-linear', ...extra].join(',');
  const mods = r.list('lora_target_modules');
  const params = r.list('lora_target_parameters');
  if (!mods && !params) return undefined;
  const t = [
    ...targetsOf(mods ?? [], 'lora_target_modules', warnings),
    ...parameterTargetsOf(params ?? [], 'lora_target_parameters', warnings),
    ...extra,
  ];
  return t.length > 0 ? [...new Set(t)].join(',') : '';
}

/** adapter / load_in_4bit / load_in_8bit / bnb_config_kwargs / lora_* → method, weights and LoRA flags. */
function adapterInto(r: FieldReader, flags: FromFlags, warnings: string[]): void {
  const adapter = r.str('adapter');
  const q4 = r.bool('load_in_4bit') === true;
  const q8 = r.bool('load_in_8bit') === true;
  const bnb = r.record('bnb_config_kwargs');
  // BitsAndBytesConfig raises on both at once: https://github.com/huggingface/transformers/blob/v4.46.0/src/transformers/utils/quantization_config.py
  if (q4 && q8)
    warnings.push(
      'load_in_4bit and load_in_8bit: both true, which transformers refuses (only one can be used); estimated as 4-bit',
    );
  if (adapter !== undefined && adapter !== 'lora' && adapter !== 'qlora')
    throw new FromError('adapter', adapter, 'lora or qlora (or no adapter for full fine-tuning)');
  if (adapter) {
    flags.method = adapter === 'qlora' || q4 ? 'qlora' : 'lora';
    if (flags.method === 'qlora') {
      // bnb_4bit_quant_type defaults to nf4 in axolotl's BitsAndBytesConfig.
      flags.weights = bnb?.bnb_4bit_quant_type === 'fp4' ? 'fp4' : 'nf4';
      // axolotl sets bnb_4bit_use_double_quant: true unless bnb_config_kwargs says otherwise.
      flags['double-quant'] = bnb?.bnb_4bit_use_double_quant !== false;
    } else if (q8) flags.weights = 'int8';
    // gptq: true trains an adapter on a GPTQ checkpoint, loaded with GPTQConfig(**its quantization_config)
    // (axolotl src/axolotl/loaders/model.py at 067b021c); utils/schemas/peft.py: "Whether you are training a 4-bit
    // GPTQ quantized model".
    else if (r.bool('gptq') === true) {
      flags.weights = 'int4';
      flags['quant-format'] = 'gptq';
    }
    const rank = r.int('lora_r');
    if (rank !== undefined) flags['lora-rank'] = rank;
    // axolotl utils/schemas/peft.py `lora_dropout: float | None = 0.0`: 0, what the hf profile counts, stays unset.
    loraDropoutInto(flags, r.fraction('lora_dropout'));
    const extra = modulesToSave(
      r.list('lora_modules_to_save') ?? [],
      'lora_modules_to_save',
      warnings,
    );
    const t = loraTargetsOf(r, [], warnings);
    if (t) flags['lora-targets'] = t;
    if (extra.length > 0) flags['modules-to-save'] = extra.join(',');
  } else {
    flags.method = 'full';
    if (q4 || q8)
      throw new FromError(
        q4 ? 'load_in_4bit' : 'load_in_8bit',
        true,
        'false without an adapter (quantized weights are frozen: set adapter: lora or qlora)',
      );
  }
}

export function mapAxolotl(
  doc: Record<string, unknown>,
  _file: string | undefined,
  keys: UpstreamKeys,
): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  // A number (`base_model: 12345`) would be looked up as a model id and blamed on --model.
  const base = r.raw('base_model');
  if (base !== undefined && typeof base !== 'string')
    throw new FromError('base_model', base, 'a Hugging Face repo id or a path to a model folder');
  const model = r.str('base_model') ?? null;
  rlInto(r, flags, warnings);
  adapterInto(r, flags, warnings);
  const seq = r.int('sequence_len');
  if (seq !== undefined) flags.seq = seq;
  const batch = r.int('micro_batch_size');
  if (batch !== undefined) flags.batch = batch;
  const accum = r.int('gradient_accumulation_steps');
  if (accum !== undefined) flags['grad-accum'] = accum;
  const optimizer = r.str('optimizer');
  if (optimizer !== undefined) flags.optimizer = hfOptimizer(optimizer, 'optimizer', warnings);
  // gradient_checkpointing: true | false | offload (activations kept in CPU memory).
  // activation_offloading: true | legacy | disk (all keep checkpoints off the GPU).
  const gc = r.raw('gradient_checkpointing');
  const off = r.raw('activation_offloading');
  if (gc === 'offload' || (off !== undefined && off !== false && off !== 'false'))
    flags.checkpointing = 'offload';
  else if (r.bool('gradient_checkpointing')) flags.checkpointing = 'full';
  // bf16: auto / true loads the model in bf16 (torch_dtype) and trains in bf16.
  const bf16 = r.boolOrAuto('bf16');
  const fp16 = r.bool('fp16');
  if (bf16) flags.compute = 'bf16';
  else if (fp16) flags.compute = 'fp16';
  else if (bf16 === false) flags.compute = 'fp32';
  if (flags.method === 'full' && flags.compute === 'fp32') flags.weights = 'fp32';
  if (r.bool('fp8') && flags.method === 'full') flags.compute = 'fp8'; // notModelled: FP8 training
  const attn = r.str('attn_implementation');
  if (attn !== undefined) flags.attention = attentionOf(attn, 'attn_implementation', warnings);
  else if (r.bool('flash_attention')) flags.attention = 'flash';
  else if (r.bool('sdp_attention')) flags.attention = 'sdpa';
  else if (r.bool('eager_attention')) flags.attention = 'eager';
  else if (r.bool('xformers_attention')) {
    flags.attention = 'sdpa';
    warnings.push('xformers_attention: estimated as SDPA memory-efficient attention');
  }
  if (r.bool('torch_compile')) flags.compile = true;
  // LigerPlugin (integrations/liger/args.py): the norm or MLP kernels mean --liger (its fused loss is part of
  // it); the fused linear cross-entropy alone, or Cut Cross-Entropy, means --chunked-loss.
  // Every key is read (no short-circuit), so none is reported as unknown.
  const liger = ['liger_rms_norm', 'liger_glu_activation', 'liger_swiglu', 'liger_rope'].map(
    (k) => r.bool(k) === true,
  );
  const ligerKernels = liger[0] || liger[1] || liger[2];
  const ligerRope = liger[3];
  const fusedLoss = [r.bool('liger_fused_linear_cross_entropy'), r.bool('cut_cross_entropy')];
  if (ligerKernels) flags.liger = true;
  else if (fusedLoss.includes(true)) flags['chunked-loss'] = true;
  if (ligerRope && !ligerKernels)
    warnings.push('liger_rope: without the Liger norm/MLP kernels its saving is not modelled');
  const cp = r.int('context_parallel_size');
  if (cp !== undefined && cp > 1) flags.cp = cp;
  const tp = r.int('tensor_parallel_size');
  if (tp !== undefined && tp > 1) flags.tp = tp;
  const fsdp = r.list('fsdp');
  const fsdpConfig = r.record('fsdp_config');
  if ((fsdp && fsdp.length > 0) || fsdpConfig)
    Object.assign(flags, mapFsdp(fsdp ?? [], fsdpConfig, 'fsdp', r.raw('fsdp_version')));
  const ds = r.raw('deepspeed');
  if (ds !== undefined && typeof ds !== 'string')
    throw new FromError('deepspeed', ds, 'a path to a DeepSpeed JSON file');
  const [build, rest] = [loadBuildOf(r, flags, fsdpConfig, doc), r.unused()];
  return {
    format: 'axolotl',
    model,
    flags,
    warnings: [...warnings, ...notModelled(r, flags)],
    ignored: rest.filter((k) => keys('axolotl').has(k)),
    unknown: rest.filter((k) => !keys('axolotl').has(k)),
    deepspeedRef: typeof ds === 'string' ? ds : null,
    deepspeedInline: null,
    memoryKeys: MEMORY_KEYS,
    ...build,
  };
}

// axolotl 0.19.0 (axolotl-0.19.0-py3-none-any.whl) loaders/model.py _prepare_model_for_quantization runs PEFT's
// prepare_model_for_kbit_training outside FSDP and ZeRO-3 (setup.ts drops it under ZeRO-3), then
// _configure_embedding_dtypes casts every "norm" module and the embeddings back to torch_dtype. Its SFT trainer is
// transformers' Trainer and its ORPO / CPO trainers get the wrapped model (no cast of the adapters); its DPO, KTO and
// GRPO trainers subclass TRL's, which cast the trainable parameters of a k-bit model to bf16
// (huggingface/trl@v1.9.0 trl/trainer/dpo_trainer.py:700-703, kto_trainer.py:749-752, grpo_trainer.py:500-503).
const AXOLOTL_BF16_ADAPTER_OBJECTIVES: readonly unknown[] = ['dpo', 'kto', 'grpo'];

/**
 * The build the loader makes: kbitBuildOf, and `llama4_linearized_experts`, under which the routed experts are one
 * nn.Linear per expert (monkeypatch/models/llama4/modeling.py at axolotl-ai-cloud/axolotl@067b021c), which
 * bitsandbytes quantizes like every nn.Linear (EstimateContext.linearizedExperts).
 */
function buildOf(
  r: FieldReader,
  flags: FromFlags,
  quantizedExperts: boolean,
): Pick<FromMapping, 'build'> {
  const kbit = kbitBuildOf(flags, quantizedExperts);
  if (r.bool('llama4_linearized_experts') !== true) return kbit;
  return { build: { ...kbit.build, linearizedExperts: true } };
}

/**
 * Whether the loader quantizes layer by layer (axolotl 0.19.0 loaders/model.py _build_model L1008-L1034:
 * adapter qlora, fsdp_config with cpu_ram_efficient_loading, qlora_sharded_model_loading; its validator
 * check_fsdp2_cpu_ram_efficient_loading_w_4bit refuses cpu_ram_efficient_loading with 4-bit under fsdp_version 2).
 */
function shardedLoadOf(
  r: FieldReader,
  flags: FromFlags,
  fsdpConfig: Record<string, unknown> | undefined,
): boolean {
  const key = r.bool('qlora_sharded_model_loading') === true;
  const version = String(r.raw('fsdp_version') ?? fsdpConfig?.fsdp_version ?? '1');
  return (
    key &&
    flags.method === 'qlora' &&
    fsdpConfig !== undefined &&
    fsdpConfig.cpu_ram_efficient_loading === true &&
    version !== '2'
  );
}

/**
 * buildOf, and where the sharded loader does not apply a 4-bit model loads through from_pretrained, whole onto
 * every GPU (loaders/model.py _set_device_map_config: device_map {"": LOCAL_RANK} for QLoRA under FSDP).
 */
function loadBuildOf(
  r: FieldReader,
  flags: FromFlags,
  fsdpConfig: Record<string, unknown> | undefined,
  doc: Record<string, unknown>,
): Pick<FromMapping, 'build'> {
  const b = buildOf(r, flags, doc.quantize_moe_experts === true);
  const whole = shardedLoadOf(r, flags, fsdpConfig) ? undefined : transformersLoadOf(flags).build;
  return whole ? { build: { ...b.build, ...whole } } : b;
}

/**
 * `quantizedExperts`: quantize_moe_experts, under which the loader quantizes the fused expert parameters to the
 * load_in_* type as they load (monkeypatch/moe_quant.py patch_moe_quantization_on_load; its schema requires an
 * adapter and load_in_4bit or load_in_8bit) and skips the k-bit preparation (loaders/model.py:1139-1141).
 */
function kbitBuildOf(flags: FromFlags, quantizedExperts: boolean): Pick<FromMapping, 'build'> {
  const kbit = flags.weights === 'nf4' || flags.weights === 'fp4' || flags.weights === 'int8';
  if (kbit && quantizedExperts && flags.method !== 'full')
    return { build: { quantizedExperts: true } };
  // flags.zero comes from fsdp here (the DeepSpeed file is merged later; setup.ts drops the cast-back under ZeRO-3).
  if (!kbit || quantizedExperts || flags.method === 'full' || flags.zero !== undefined) return {};
  const fp32Adapters = !AXOLOTL_BF16_ADAPTER_OBJECTIVES.includes(flags.objective);
  return {
    build: { kbitNormsCastBack: true, ...(fp32Adapters ? { kbitFp32Adapters: true } : {}) },
  };
}

// axolotl RLType (src/axolotl/utils/schemas/enums.py): dpo, ipo (DPO's loss), kto, orpo, simpo, grpo; the
// `trl:` block carries TRL's GRPOConfig fields (num_generations, max_completion_length, use_vllm, ...).
const AXOLOTL_RL: Record<string, string> = {
  dpo: 'dpo',
  ipo: 'dpo',
  kto: 'kto',
  orpo: 'orpo',
  simpo: 'simpo',
  grpo: 'grpo',
};

function rlInto(r: FieldReader, flags: FromFlags, warnings: string[]): void {
  // reward_model with a sequence-classification model_type (axolotl 067b021 docs/reward_modelling.qmd) trains
  // AxolotlRewardTrainer, TRL's RewardTrainer (core/builders/causal.py L160-L161, L364-L368).
  const modelType = r.str('model_type') ?? '';
  if (r.bool('reward_model') && /ForSequenceClassification$/.test(modelType)) {
    flags.objective = 'reward';
    r.used.add('center_rewards_coefficient');
  }
  // process_reward_model with a token-classification model_type (the same docs) trains AxolotlPRMTrainer, TRL's
  // PRMTrainer (causal.py L162-L163, L370-L371).
  if (r.bool('process_reward_model') && /ForTokenClassification$/.test(modelType))
    flags.objective = 'prm';
  const rl = r.str('rl');
  if (rl === undefined) return;
  const objective = AXOLOTL_RL[rl.toLowerCase()];
  if (objective === undefined) {
    warnings.push(`rl: ${rl} is not modelled (estimated as SFT)`);
    return;
  }
  const trl = r.record('trl');
  mapTrlObjective(new FieldReader(trl ?? {}, 'trl.'), objective, flags);
  // Top-level keys (axolotl 067b021 schemas/config.py): DPO/KTO's precompute_ref_log_probs; beta, ORPO's
  // alpha and SimPO's gamma / BC weight (rl.py#L122-L156) change no memory.
  if ((objective === 'dpo' || objective === 'kto') && r.bool('precompute_ref_log_probs'))
    flags.reference = 'precomputed';
  for (const k of ['rl_beta', 'orpo_alpha', 'simpo_gamma', 'cpo_alpha', 'max_prompt_len'])
    r.used.add(k);
  // GRPO colocate: grpo/__init__.py#L72-L76 passes vllm.gpu_memory_utilization (VllmConfig default 0.9), not
  // a trl key, as vllm_gpu_memory_utilization.
  const vllm = r.record('vllm');
  if (flags.rollout === 'vllm-colocate') {
    const share = vllm?.gpu_memory_utilization;
    if (share !== undefined && typeof share !== 'number')
      throw new FromError('vllm.gpu_memory_utilization', share, 'a number between 0 and 1');
    flags['rollout-memory'] = share ?? AXOLOTL_VLLM_SHARE;
  }
}

// axolotl 067b021 src/axolotl/utils/schemas/vllm.py: gpu_memory_utilization default 0.9.
const AXOLOTL_VLLM_SHARE = 0.9;
