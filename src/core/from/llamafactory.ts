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
} from './common.js';
import { TRAINER_MEMORY_KEYS, attentionOf, mapTrainerArgs } from './hf-args.js';
import { HF_ARGS_KEYS, LLAMAFACTORY_KEYS } from './vocab.js';

const MEMORY_KEYS = [
  ...TRAINER_MEMORY_KEYS,
  'model_name_or_path',
  'finetuning_type',
  'quantization_bit',
  'quantization_method',
  'quantization_type',
  'double_quantization',
  'lora_rank',
  'lora_target',
  'additional_target',
  'cutoff_len',
  'stage',
  'pure_bf16',
  'disable_gradient_checkpointing',
  'flash_attn',
  'enable_liger_kernel',
  'use_unsloth',
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

export function mapLlamaFactory(doc: Record<string, unknown>): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = {};
  const warnings: string[] = [];
  const model = r.str('model_name_or_path') ?? null;
  const type = r.str('finetuning_type') ?? 'lora';
  const stage = r.str('stage') ?? 'sft';
  if (!STAGES.includes(stage)) throw new FromError('stage', stage, STAGES.join(', '));
  if (stage === 'ppo' || stage === 'dpo' || stage === 'kto')
    warnings.push(
      `stage: ${stage} holds extra sequences (chosen/rejected, or generated) and a reference or reward model ${type === 'lora' ? '(the adapter-free base serves as reference)' : '(a second model copy)'}; estimated as SFT`,
    );
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
    // lora_target defaults to "all" (every linear layer but the head).
    const targets = r.list('lora_target') ?? ['all'];
    const extra = modulesToSave(r.list('additional_target') ?? [], 'additional_target', warnings);
    if (targets.some((t) => t.toLowerCase() === 'all'))
      flags['lora-targets'] = ['all-linear', ...extra].join(',');
    else {
      const t = [...targetsOf(targets, 'lora_target', warnings), ...extra];
      if (t.length > 0) flags['lora-targets'] = t.join(',');
    }
  } else throw new FromError('finetuning_type', type, 'full, freeze, lora or oft');
  const seq = r.int('cutoff_len');
  // cutoff_len defaults to 2048 in data_args.py.
  flags.seq = seq ?? 2048;
  const trainer = mapTrainerArgs(r, flags, warnings);
  // Gradient checkpointing is on unless disable_gradient_checkpointing (model_args.py).
  if (r.bool('disable_gradient_checkpointing') !== true) flags.checkpointing = 'full';
  const pureBf16 = r.bool('pure_bf16') === true;
  if (pureBf16) flags.compute = 'bf16';
  // Full tuning upcasts trainable parameters to fp32 unless pure_bf16 or ZeRO-3 (model/adapter.py).
  if (flags.method === 'full' && !pureBf16 && trainer.deepspeedRef === null) flags.weights = 'fp32';
  const fa = r.str('flash_attn');
  if (fa !== undefined && fa !== 'auto')
    flags.attention = fa === 'disabled' ? 'eager' : attentionOf(fa, 'flash_attn', warnings);
  if (r.bool('enable_liger_kernel')) flags['chunked-loss'] = true;
  if (r.bool('use_unsloth')) flags.framework = 'unsloth';
  for (const [key, why] of Object.entries(NOT_MODELLED))
    if (r.has(key) && r.raw(key) !== false) warnings.push(`${key}: ${why}`);
  const known = (k: string) => LLAMAFACTORY_KEYS.has(k) || HF_ARGS_KEYS.has(k);
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
  };
}
