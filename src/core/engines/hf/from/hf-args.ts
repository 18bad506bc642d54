/**
 * Hugging Face `TrainingArguments` / TRL `SFTConfig` (+ TRL `ModelConfig`) JSON → contract flags.
 * Fields: https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments ,
 * https://huggingface.co/docs/trl/sft_trainer , https://huggingface.co/docs/trl/main/en/model_config
 */
import {
  FieldReader,
  FromError,
  type FromFlags,
  type FromMapping,
  hfOptimizer,
  isRecord,
  modulesToSave,
  parameterTargetsOf,
  targetsOf,
  type UpstreamKeys,
  transformersLoadOf,
  loraDropoutInto,
} from '../../../from/common.js';
import { mapFsdp } from './fsdp.js';
import { mapTrlObjective, trlObjectiveOf } from './trl-objective.js';

/** The trainer config blocks `vramplan launch` writes into hf-args.json, by TRL trainer. */
const CONFIG_BLOCKS = [
  'sft_config',
  'dpo_config',
  'kto_config',
  'orpo_config',
  'cpo_config',
  'grpo_config',
] as const;

/** The Trainer fields every Trainer-based tool shares (LLaMA-Factory passes them through too). */
export const TRAINER_MEMORY_KEYS = [
  'per_device_train_batch_size',
  'gradient_accumulation_steps',
  'bf16',
  'fp16',
  'gradient_checkpointing',
  'optim',
  'deepspeed',
  'fsdp',
  'fsdp_config',
  'torch_compile',
  'use_liger_kernel',
  'liger_kernel_config',
] as const;

/**
 * use_liger_kernel: every Liger kernel for the model type (--liger), unless liger_kernel_config (the kwargs of
 * liger_kernel/transformers/monkey_patch.py apply_liger_kernel_to_*) switches the norms and the MLP off: then
 * only the fused linear cross-entropy runs (--chunked-loss), or nothing vocabulary-sized changes.
 */
export function ligerFlags(config: Record<string, unknown> | undefined, flags: FromFlags): void {
  const lossOnly =
    config !== undefined &&
    config.rms_norm === false &&
    (config.swiglu === false || config.geglu === false);
  if (!lossOnly) flags.liger = true;
  else if (config.fused_linear_cross_entropy !== false) flags['chunked-loss'] = true;
}

export interface TrainerPart {
  deepspeedRef: string | null;
  deepspeedInline: Record<string, unknown> | null;
}

/** Reads the shared Trainer fields into `flags`. */
export function mapTrainerArgs(r: FieldReader, flags: FromFlags, warnings: string[]): TrainerPart {
  const batch = r.int('per_device_train_batch_size');
  if (batch !== undefined) flags.batch = batch;
  const accum = r.int('gradient_accumulation_steps');
  if (accum !== undefined) flags['grad-accum'] = accum;
  const bf16 = r.bool('bf16');
  const fp16 = r.bool('fp16');
  if (bf16) flags.compute = 'bf16';
  else if (fp16) flags.compute = 'fp16';
  // Both switched off: the Trainer runs in fp32.
  else if (bf16 === false && fp16 === false) flags.compute = 'fp32';
  if (r.bool('gradient_checkpointing')) flags.checkpointing = 'full';
  const optim = r.str('optim');
  if (optim !== undefined) flags.optimizer = hfOptimizer(optim, 'optim', warnings);
  if (r.bool('torch_compile')) flags.compile = true;
  if (r.bool('use_liger_kernel')) ligerFlags(r.record('liger_kernel_config'), flags);
  const fsdp = r.raw('fsdp');
  if (fsdp !== undefined && fsdp !== false && fsdp !== '') {
    const words = r.list('fsdp') ?? [];
    if (words.length > 0) Object.assign(flags, mapFsdp(words, r.record('fsdp_config'), 'fsdp'));
  } else r.used.add('fsdp_config');
  const ds = r.raw('deepspeed');
  let deepspeedRef: string | null = null;
  let deepspeedInline: Record<string, unknown> | null = null;
  if (typeof ds === 'string') deepspeedRef = ds;
  else if (isRecord(ds)) deepspeedInline = ds;
  else if (ds !== undefined)
    throw new FromError('deepspeed', ds, 'a path to a DeepSpeed JSON file or an inline config');
  return { deepspeedRef, deepspeedInline };
}

const HF_MEMORY_KEYS = [
  ...TRAINER_MEMORY_KEYS,
  'model_name_or_path',
  'max_seq_length',
  'max_length',
  'use_peft',
  'lora_r',
  'lora_dropout',
  'lora_target_modules',
  'lora_target_parameters',
  'lora_modules_to_save',
  'load_in_4bit',
  'load_in_8bit',
  'bnb_4bit_quant_type',
  'use_bnb_nested_quant',
  'torch_dtype',
  'dtype',
  'model_init_kwargs',
  'attn_implementation',
  'activation_offloading',
] as const;

// TRL max_length default of SFTConfig, DPOConfig, KTOConfig (trl/trainer/{sft,dpo,kto}_config.py at v1.9.0),
// ORPOConfig and CPOConfig (trl/experimental/{orpo,cpo}/*_config.py at v1.9.0): 1024 in each.
const TRL_DEFAULT_MAX_LENGTH = 1024;

const DTYPES: Record<string, string> = {
  bfloat16: 'bf16',
  float16: 'fp16',
  float32: 'fp32',
  bf16: 'bf16',
  fp16: 'fp16',
  fp32: 'fp32',
};

/**
 * The hf-args.json `vramplan launch` writes (src/core/launch/hf.ts: model_init_kwargs, bnb_config,
 * lora_config, sft_config) as the flat TrainingArguments + TRL ModelConfig fields it stands for.
 */
export function flattenLaunchArgs(doc: Record<string, unknown>): Record<string, unknown> {
  const block = CONFIG_BLOCKS.find((k) => isRecord(doc[k]));
  if (block === undefined) return doc;
  const init = isRecord(doc.model_init_kwargs) ? doc.model_init_kwargs : {};
  const bnb = isRecord(doc.bnb_config) ? doc.bnb_config : null;
  const lora = isRecord(doc.lora_config) ? doc.lora_config : null;
  const flat: Record<string, unknown> = {
    ...(doc[block] as Record<string, unknown>),
    model_name_or_path: doc.model_name_or_path,
  };
  if (typeof doc.trainer === 'string') flat.trainer = doc.trainer;
  // launch.sh starts `trl vllm-serve` on these GPUs (server mode); the trainer runs on the rest.
  if (isRecord(doc.vllm_serve)) flat.vllm_serve = doc.vllm_serve;
  // GRPO: the prompt limit train.py applies (GRPOConfig has none since huggingface/trl#4847).
  if (doc.max_prompt_length !== undefined) flat.max_prompt_length = doc.max_prompt_length;
  if (init.dtype !== undefined) flat.dtype = init.dtype;
  if (init.attn_implementation !== undefined) flat.attn_implementation = init.attn_implementation;
  if (lora) {
    flat.use_peft = true;
    flat.lora_r = lora.r;
    flat.lora_dropout = lora.lora_dropout ?? 0; // PEFT LoraConfig's default, not TRL's
    flat.lora_target_modules = lora.target_modules;
    if (lora.target_parameters !== undefined) flat.lora_target_parameters = lora.target_parameters;
    if (lora.modules_to_save !== undefined) flat.lora_modules_to_save = lora.modules_to_save;
  }
  if (bnb) {
    if (bnb.load_in_4bit === true) flat.load_in_4bit = true;
    if (bnb.load_in_8bit === true) flat.load_in_8bit = true;
    if (bnb.bnb_4bit_quant_type !== undefined) flat.bnb_4bit_quant_type = bnb.bnb_4bit_quant_type;
    if (bnb.bnb_4bit_use_double_quant !== undefined)
      flat.use_bnb_nested_quant = bnb.bnb_4bit_use_double_quant;
  }
  return flat;
}

/**
 * What a TRL trainer config sets where the document does not: max_length 1024 for the trainers whose config bounds
 * it (SFT, DPO, KTO, ORPO, CPO/SimPO), and gradient_checkpointing True, which every TRL trainer config's _BaseConfig
 * sets (trl/trainer/base_config.py at v1.9.0: "defaults to `True`"); a TrainingArguments file alone keeps False.
 */
function trlDefaultsInto(
  r: FieldReader,
  objective: string | null,
  launched: boolean,
  flags: FromFlags,
  warnings: string[],
): void {
  if (objective !== null && !launched && !r.has('gradient_checkpointing')) {
    flags.checkpointing = 'full';
    warnings.push("gradient_checkpointing: not set; TRL's default True used");
  }
  const seq = r.int('max_length') ?? r.int('max_seq_length');
  const bounded = objective !== null && objective !== 'grpo' && objective !== 'ppo';
  if (seq !== undefined) flags.seq = seq;
  else if (bounded || r.has('dataset_text_field') || r.has('packing')) {
    flags.seq = TRL_DEFAULT_MAX_LENGTH;
    warnings.push(`max_length: not set; TRL's default ${TRL_DEFAULT_MAX_LENGTH} used`);
  }
}

/**
 * `file`: the config's path; where no key names the TRL trainer, its name or folder may (`dpo_config.yaml`).
 */
export function mapHfArgs(
  input: Record<string, unknown>,
  file: string | undefined,
  keys: UpstreamKeys,
): FromMapping {
  const hfArgsKeys = keys('hf-args');
  const trlKeys = keys('trl'); // TRL's and its recipe repositories' keys (mapTrlObjective reads its own first)
  const doc = flattenLaunchArgs(input);
  // hf-args.json from `vramplan launch` (a trainer block): its keys are TRL v1.9.0's, no warnings due.
  const launched = doc !== input;
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  const model = r.str('model_name_or_path') ?? null;
  const trainer = mapTrainerArgs(r, flags, warnings);
  const objective = trlObjectiveOf(doc, r.str('trainer'), launched ? undefined : file, warnings);
  const rl = objective !== null && objective !== 'sft';
  if (rl) mapTrlObjective(r, objective, flags, launched ? undefined : { warnings });
  if (rl && !launched && r.has('torch_dtype') && !r.has('dtype'))
    warnings.push(
      `torch_dtype: TRL v1.9.0's ModelConfig calls it dtype (huggingface/trl#4000; torch_dtype removed in v0.27.0, huggingface/trl#4651) and \`trl\` drops the old name, loading float32; estimated with ${String(r.raw('torch_dtype'))}, what the config asks for`,
    );
  const serve = r.record('vllm_serve');
  if (serve && typeof serve.gpus === 'number') {
    flags['rollout-gpus'] = serve.gpus;
    // Every GPU of the run: the server's and the trainers' (accelerate.yaml counts the trainers only).
    if (typeof serve.trainer_gpus === 'number') flags.gpus = serve.gpus + serve.trainer_gpus;
  }
  trlDefaultsInto(r, objective, launched, flags, warnings);
  const q4 = r.bool('load_in_4bit');
  const q8 = r.bool('load_in_8bit');
  const peft = r.bool('use_peft') === true || q4 === true;
  if (peft) {
    flags.method = q4 ? 'qlora' : 'lora';
    if (q4) flags.weights = r.str('bnb_4bit_quant_type') === 'fp4' ? 'fp4' : 'nf4';
    else if (q8) flags.weights = 'int8';
    if (r.bool('use_bnb_nested_quant')) flags['double-quant'] = true;
    const rank = r.int('lora_r');
    if (rank !== undefined) flags['lora-rank'] = rank;
    // A lora_config (PEFT LoraConfig, default 0.0) or TRL's --lora_dropout, whose ModelConfig default is 0.05 where
    // --use_peft names none (huggingface/trl@v1.9.0 trl/trainer/model_config.py L115-L118).
    const trlDefault = r.bool('use_peft') === true ? 0.05 : undefined;
    loraDropoutInto(flags, r.fraction('lora_dropout') ?? trlDefault);
    const mods = r.list('lora_target_modules');
    const extra = modulesToSave(
      r.list('lora_modules_to_save') ?? [],
      'lora_modules_to_save',
      warnings,
    );
    // target_parameters (fused 3-D experts) adapt gate/up/down too: 'all-linear' already counts them.
    const params = r.list('lora_target_parameters');
    const experts = params ? parameterTargetsOf(params, 'lora_target_parameters', warnings) : [];
    if (mods && mods.some((m) => m.toLowerCase() === 'all-linear'))
      flags['lora-targets'] = 'all-linear';
    else if (mods || experts.length > 0) {
      const t = [...targetsOf(mods ?? [], 'lora_target_modules', warnings), ...experts];
      if (t.length > 0) flags['lora-targets'] = [...new Set(t)].join(',');
    }
    if (extra.length > 0) flags['modules-to-save'] = extra.join(',');
  }
  const init = r.record('model_init_kwargs');
  const dtype = r.str('dtype') ?? r.str('torch_dtype') ?? init?.torch_dtype ?? init?.dtype;
  if (typeof dtype === 'string' && DTYPES[dtype] && flags.weights === undefined)
    flags.weights = DTYPES[dtype];
  else if (!peft && flags.framework !== 'deepspeed' && trainer.deepspeedRef === null) {
    // from_pretrained loads fp32 unless torch_dtype says otherwise; the Trainer's bf16 flag is autocast.
    flags.weights = 'fp32';
  }
  const attn = r.str('attn_implementation');
  if (attn !== undefined) flags.attention = attentionOf(attn, 'attn_implementation', warnings);
  if (r.bool('activation_offloading')) flags.checkpointing = 'offload';
  const rest = r.unused();
  return {
    format: 'hf-args',
    model,
    flags,
    warnings,
    ignored: rest.filter((k) => hfArgsKeys.has(k) || trlKeys.has(k)),
    unknown: rest.filter((k) => !hfArgsKeys.has(k) && !trlKeys.has(k)),
    deepspeedRef: trainer.deepspeedRef,
    deepspeedInline: trainer.deepspeedInline,
    memoryKeys: HF_MEMORY_KEYS,
    ...transformersLoadOf(flags),
  };
}

/**
 * transformers attn_implementation names → contract attention; hub kernels ("kernels-community/...") and
 * xformers are estimated by their family with a warning.
 */
export function attentionOf(name: string, field: string, warnings: string[]): string {
  const n = name.toLowerCase();
  if (n === 'eager') return 'eager';
  if (n === 'sdpa' || n === 'flex_attention') return 'sdpa';
  if (n.startsWith('flash_attention') || n === 'fa2' || n === 'flash') return 'flash';
  // FlashAttention-2 from the kernels hub (what the launchers write: hf/rules.ts flash-attn-wheel).
  if (n === 'kernels-community/flash-attn2' || n === 'kernels-community/flash-attn') return 'flash';
  if (n.includes('flash') || n.includes('xformers')) {
    warnings.push(
      `${field}: ${name} estimated as ${n.includes('flash') ? 'flash' : 'sdpa'} attention (no score matrix kept)`,
    );
    return n.includes('flash') ? 'flash' : 'sdpa';
  }
  warnings.push(`${field}: '${name}' is not a known attention kernel; estimated as sdpa`);
  return 'sdpa';
}
