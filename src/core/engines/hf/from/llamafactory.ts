/**
 * LLaMA-Factory YAML → contract flags. Arguments: https://github.com/hiyouga/LLaMA-Factory/tree/main/src/llamafactory/hparams
 * (model_args.py, finetuning_args.py, data_args.py; the Trainer's own fields pass through).
 */
import {
  FieldReader,
  FromError,
  type FromFlags,
  type FromMapping,
  modulesToSave,
  targetsOf,
  type UpstreamKeys,
  transformersLoadOf,
  loraDropoutInto,
} from '../../../from/common.js';
import { TRAINER_MEMORY_KEYS, attentionOf, mapTrainerArgs } from './hf-args.js';

const MEMORY_KEYS = [
  ...TRAINER_MEMORY_KEYS,
  'model_name_or_path',
  'finetuning_type',
  'quantization_bit',
  'quantization_method',
  'quantization_type',
  'double_quantization',
  'lora_rank',
  'lora_dropout',
  'lora_target',
  'additional_target',
  'cutoff_len',
  'stage',
  'pure_bf16',
  'disable_gradient_checkpointing',
  'flash_attn',
  'enable_liger_kernel',
  'use_unsloth',
  'use_adam_mini',
  'fp8',
  'fp8_backend',
] as const;

const NOT_MODELLED: Record<string, string> = {
  use_galore: 'GaLore low-rank optimizer states (estimated with the plain optimizer: upper bound)',
  use_apollo: 'APOLLO optimizer states (estimated with the plain optimizer: upper bound)',
  use_badam: 'BAdam trains one block at a time (estimated as full fine-tuning: upper bound)',
  use_dora: 'DoRA magnitude vectors and weight-norm pass (not modelled)',
  pissa_init: 'PiSSA initialisation (same memory as LoRA once trained; init pass not modelled)',
  packing: 'packing (same per-sample length; attention masks not modelled)',
};

// Stages: https://github.com/hiyouga/LLaMA-Factory/blob/main/src/llamafactory/hparams/finetuning_args.py
const STAGES = ['pt', 'sft', 'rm', 'ppo', 'dpo', 'kto'];

// Long on purpose: one mapping per LLaMA-Factory argument, each line standing alone.
export function mapLlamaFactory(
  doc: Record<string, unknown>,
  _file: string | undefined,
  keys: UpstreamKeys,
): FromMapping {
  if (isLlamaFactoryV1(doc)) return mapLlamaFactoryV1(doc);
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  const model = r.str('model_name_or_path') ?? null;
  const type = r.str('finetuning_type') ?? 'lora';
  const stage = r.str('stage') ?? 'sft';
  if (!STAGES.includes(stage)) throw new FromError('stage', stage, STAGES.join(', '));
  if (stage === 'ppo')
    warnings.push(
      `stage: ppo holds generated sequences, a value head and a reward model ${type === 'lora' ? '(the adapter-free base serves as reference)' : '(a second model copy)'}; estimated as SFT`,
    );
  // stage rm (LLaMA-Factory@ff6d4d12 src/llamafactory/train/rm/workflow.py load_model(add_valuehead=True)) wraps the
  // causal LM in TRL's AutoModelForCausalLMWithValueHead (trl<=0.24.0 there; huggingface/trl@v0.24.0
  // trl/models/modeling_value_head.py forward): lm_head stays and its logits are computed and upcast to fp32 beside
  // a Linear(hidden, 1) value head, so --objective reward (a score head, no vocabulary logits) is not what it runs.
  if (stage === 'rm')
    warnings.push(
      'stage: rm keeps the lm_head and computes its vocabulary logits beside a value head (TRL AutoModelForCausalLMWithValueHead, as LLaMA-Factory loads it); estimated as SFT, with chosen and rejected each a sequence of the batch (PairwiseDataCollatorWithPadding): give --batch twice per_device_train_batch_size',
    );
  // LLaMA-Factory runs TRL's DPOTrainer / KTOTrainer; pref_loss orpo and simpo drop the reference
  // (src/llamafactory/train/dpo/trainer.py: use_ref_model = pref_loss not in ["orpo", "simpo"]).
  if (stage === 'kto') flags.objective = 'kto';
  if (stage === 'dpo') {
    const loss = r.str('pref_loss') ?? 'sigmoid';
    flags.objective = loss === 'orpo' || loss === 'simpo' ? loss : 'dpo';
  }
  const qbit = r.int('quantization_bit');
  const qmethod = (r.str('quantization_method') ?? 'bnb').toLowerCase();
  if (qbit !== undefined && qbit !== 4 && qbit !== 8)
    throw new FromError(
      'quantization_bit',
      qbit,
      '4 or 8 (2 and 3 bits with hqq are not modelled)',
    );
  if (qbit !== undefined && qmethod !== 'bnb')
    warnings.push(
      `quantization_method: ${qmethod} estimated with the same storage as bitsandbytes ${qbit}-bit`,
    );
  if (type === 'full' || type === 'freeze') {
    if (qbit !== undefined)
      throw new FromError('quantization_bit', qbit, 'unset with finetuning_type full/freeze');
    flags.method = 'full';
    if (type === 'freeze')
      warnings.push(
        'finetuning_type: freeze trains only the last layers (estimated as full fine-tuning: upper bound)',
      );
  } else if (type === 'lora' || type === 'oft') {
    if (type === 'oft') warnings.push('finetuning_type: oft estimated as LoRA of the same rank');
    flags.method = qbit === 4 ? 'qlora' : 'lora';
    if (qbit === 4) {
      flags.weights = (r.str('quantization_type') ?? 'nf4') === 'fp4' ? 'fp4' : 'nf4';
      // double_quantization defaults to true in LLaMA-Factory's model_args.py.
      flags['double-quant'] = r.bool('double_quantization') !== false;
    } else if (qbit === 8) flags.weights = 'int8';
    const rank = r.int('lora_rank');
    if (rank !== undefined) flags['lora-rank'] = rank;
    // LLaMA-Factory hparams/finetuning_args.py `lora_dropout` default 0.0: 0, what the hf profile counts, stays unset.
    loraDropoutInto(flags, r.fraction('lora_dropout'));
    // lora_target defaults to "all" (every linear layer but the head).
    const targets = r.list('lora_target') ?? ['all'];
    const extra = modulesToSave(r.list('additional_target') ?? [], 'additional_target', warnings);
    if (targets.some((t) => t.toLowerCase() === 'all')) flags['lora-targets'] = 'all-linear';
    else {
      const t = targetsOf(targets, 'lora_target', warnings);
      if (t.length > 0) flags['lora-targets'] = t.join(',');
    }
    if (extra.length > 0) flags['modules-to-save'] = extra.join(',');
  } else throw new FromError('finetuning_type', type, 'full, freeze, lora or oft');
  const seq = r.int('cutoff_len');
  // cutoff_len defaults to 2048 in data_args.py.
  flags.seq = seq ?? 2048;
  const trainer = mapTrainerArgs(r, flags, warnings);
  optimizerAndFp8(r, flags, warnings);
  // Gradient checkpointing is on unless disable_gradient_checkpointing (model_args.py).
  if (r.bool('disable_gradient_checkpointing') !== true) flags.checkpointing = 'full';
  const pureBf16 = r.bool('pure_bf16') === true;
  if (pureBf16) flags.compute = 'bf16';
  // Full tuning upcasts trainable parameters to fp32 unless pure_bf16 or ZeRO-3 (model/adapter.py).
  if (flags.method === 'full' && !pureBf16 && trainer.deepspeedRef === null) flags.weights = 'fp32';
  const fa = r.str('flash_attn');
  if (fa !== undefined && fa !== 'auto')
    flags.attention = fa === 'disabled' ? 'eager' : attentionOf(fa, 'flash_attn', warnings);
  // enable_liger_kernel applies every Liger kernel of the model type (model/model_utils/liger_kernel.py);
  // Unsloth runs its own fused loss instead.
  if (r.bool('use_unsloth')) flags.framework = 'unsloth';
  if (r.bool('enable_liger_kernel'))
    flags[flags.framework === 'unsloth' ? 'chunked-loss' : 'liger'] = true;
  for (const [key, why] of Object.entries(NOT_MODELLED))
    if (r.has(key) && r.raw(key) !== false) warnings.push(`${key}: ${why}`);
  const factoryKeys = keys('llamafactory');
  const hfArgsKeys = keys('hf-args');
  const known = (k: string) => factoryKeys.has(k) || hfArgsKeys.has(k);
  const rest = r.unused();
  return {
    format: 'llamafactory',
    model,
    flags,
    warnings,
    ignored: rest.filter(known),
    unknown: rest.filter((k) => !known(k)),
    deepspeedRef: trainer.deepspeedRef,
    deepspeedInline: trainer.deepspeedInline,
    memoryKeys: MEMORY_KEYS,
    ...transformersLoadOf(flags),
  };
}

/**
 * The optimizer and FP8 switches LLaMA-Factory adds to the Trainer's: `use_adam_mini` replaces the optimizer with
 * Adam-mini (src/llamafactory/train/trainer_utils.py create_custom_optimizer); `fp8` hands Accelerate torchao's
 * float8 recipe (fp8_backend auto or torchao; `te` is Transformer Engine) for the linears of a full fine-tune
 * (src/llamafactory/train/fp8_utils.py create_fp8_kwargs). hiyouga/LLaMA-Factory@ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30
 */
function optimizerAndFp8(r: FieldReader, flags: FromFlags, warnings: string[]): void {
  if (r.bool('use_adam_mini')) flags.optimizer = 'adam-mini';
  if (!r.bool('fp8')) return;
  const backend = (r.str('fp8_backend') ?? 'auto').toLowerCase();
  if (backend !== 'auto' && backend !== 'torchao')
    warnings.push(
      `fp8_backend: ${backend} (Transformer Engine / MS-AMP FP8) is not modelled; estimated in ${String(flags.compute ?? 'bf16')}`,
    );
  else if (flags.method === 'full') flags.compute = 'fp8';
  else warnings.push('fp8: FP8 training is modelled for full fine-tunes only; estimated in bf16');
}

// LLaMA-Factory v1 configs (examples/v1: model, peft_config, quant_config, dist_config, kernel_config...):
// https://github.com/hiyouga/LLaMA-Factory/tree/main/examples/v1
const V1_MEMORY_KEYS = [
  'model',
  'peft_config',
  'quant_config',
  'dist_config',
  'kernel_config',
  'optim_config',
  'micro_batch_size',
  'cutoff_len',
  'bf16',
  'flash_attn',
  'cp_size',
] as const;

const V1_OTHER = new Set([
  'model_class',
  'init_config',
  'train_dataset',
  'eval_dataset',
  'output_dir',
  'learning_rate',
  'max_steps',
  'num_train_epochs',
  'global_batch_size',
  'sample_backend',
  'max_new_tokens',
  'trust_remote_code',
  'cp_mode',
  'batching_strategy',
  'seed',
  'logging_steps',
  'save_steps',
]);

/** A v1 config: `model` is a string next to v1 blocks (peft_config, dist_config, model_class...). */
export const isLlamaFactoryV1 = (doc: Record<string, unknown>): boolean =>
  typeof doc.model === 'string' &&
  ['peft_config', 'dist_config', 'model_class', 'kernel_config', 'quant_config'].some(
    (k) => k in doc,
  );

export function mapLlamaFactoryV1(doc: Record<string, unknown>): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  const model = r.str('model') ?? null;
  const peft = r.record('peft_config');
  const quant = r.record('quant_config');
  const bits = quant?.quantization_bit;
  const name = typeof peft?.name === 'string' ? peft.name : undefined;
  if (name === 'lora') {
    flags.method = bits === 4 ? 'qlora' : 'lora';
    if (bits === 4) flags.weights = 'nf4';
    else if (bits === 8) flags.weights = 'int8';
    if (typeof peft?.r === 'number') flags['lora-rank'] = peft.r;
    if (typeof peft?.lora_dropout === 'number' && peft.lora_dropout > 0)
      flags['lora-dropout'] = peft.lora_dropout;
    const t = peft?.target_modules;
    const list =
      typeof t === 'string'
        ? t.split(',').map((x) => x.trim())
        : Array.isArray(t)
          ? t.map(String)
          : ['all'];
    if (list.includes('all')) flags['lora-targets'] = 'all-linear';
    else {
      const mapped = targetsOf(list, 'peft_config.target_modules', warnings);
      if (mapped.length > 0) flags['lora-targets'] = mapped.join(',');
    }
  } else {
    flags.method = 'full';
    if (name === 'freeze')
      warnings.push(
        'peft_config: freeze trains only some layers (estimated as full fine-tuning: upper bound)',
      );
    else if (name !== undefined)
      throw new FromError(
        'peft_config.name',
        name,
        'lora or freeze (or no peft_config for full fine-tuning)',
      );
  }
  if (quant && bits !== undefined && bits !== 4 && bits !== 8)
    throw new FromError('quant_config.quantization_bit', bits, '4 or 8');
  const batch = r.int('micro_batch_size');
  if (batch !== undefined) flags.batch = batch;
  flags.seq = r.int('cutoff_len') ?? 2048;
  if (r.bool('bf16')) flags.compute = 'bf16';
  const fa = r.str('flash_attn');
  if (fa !== undefined && fa !== 'auto')
    flags.attention = fa === 'disabled' ? 'eager' : attentionOf(fa, 'flash_attn', warnings);
  const cp = r.int('cp_size');
  if (cp !== undefined && cp > 1) flags.cp = cp;
  const kernel = r.record('kernel_config');
  if (typeof kernel?.name === 'string' && kernel.name.includes('liger')) flags.liger = true;
  const optim = r.record('optim_config');
  if (typeof optim?.name === 'string' && optim.name !== 'adamw')
    warnings.push(`optim_config.name: '${optim.name}' is not modelled; estimated as AdamW`);
  let deepspeedRef: string | null = null;
  const dist = r.record('dist_config');
  const dname = typeof dist?.name === 'string' ? dist.name : undefined;
  if (dname === 'deepspeed' && typeof dist?.config_file === 'string')
    deepspeedRef = dist.config_file;
  else if (dname === 'fsdp2' || dname === 'fsdpturbo') {
    flags.framework = 'hf';
    flags.zero = 3;
    if (dname === 'fsdpturbo')
      warnings.push('dist_config: fsdpturbo (expert parallel) estimated as FSDP2 full sharding');
  }
  const rest = r.unused();
  return {
    format: 'llamafactory',
    model,
    flags,
    warnings,
    ignored: rest.filter((k) => V1_OTHER.has(k)),
    unknown: rest.filter((k) => !V1_OTHER.has(k)),
    deepspeedRef,
    deepspeedInline: null,
    memoryKeys: V1_MEMORY_KEYS,
    ...transformersLoadOf(flags),
  };
}
