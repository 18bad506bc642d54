/**
 * The Hugging Face stack's `--from` readers: the Trainer's own arguments (and TRL's configs), axolotl and
 * LLaMA-Factory YAML, Accelerate YAML and DeepSpeed JSON. Each detects its tool by the keys only that tool uses;
 * `order` places it among every engine's readers (from/index.ts detectFormat).
 */
import { trainCommandOf } from './trl-cli.js';
import type { ConfigReader, NamedDeepSpeed } from '../../def.js';
import { hasAny } from '../../../from/common.js';
import { mapAccelerate } from './accelerate.js';
import { mapAxolotl } from './axolotl.js';
import { DEEPSPEED_MEMORY_KEYS, mapDeepSpeed } from './deepspeed.js';
import { mapHfArgs } from './hf-args.js';
import { isLlamaFactoryV1, mapLlamaFactory } from './llamafactory.js';

const LLAMAFACTORY = 'LLaMA-Factory YAML';

/**
 * The DeepSpeed JSON a Hugging Face config names (axolotl's and LLaMA-Factory's `deepspeed`, Accelerate's
 * `deepspeed_config_file`), or the dict under TrainingArguments' `deepspeed` (./hf-args.ts mapTrainerArgs; "path to
 * deepspeed config file or an already loaded json file as a dict":
 * https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments.deepspeed).
 */
const NAMED_DEEPSPEED: NamedDeepSpeed = { map: mapDeepSpeed, inlineKey: 'deepspeed' };

/** DeepSpeed JSON given alone: ZeRO keys, and none of a training config's. */
export const DEEPSPEED_READER: ConfigReader = {
  format: 'deepspeed',
  name: 'DeepSpeed JSON',
  order: 40,
  detect: (doc) =>
    hasAny(doc, ['zero_optimization', 'train_micro_batch_size_per_gpu', 'train_batch_size']) &&
    !hasAny(doc, ['per_device_train_batch_size', 'base_model', 'model_name_or_path']),
  map: (doc) => {
    const ds = mapDeepSpeed(doc);
    if (ds.precisionAuto)
      ds.warnings.push(
        'bf16/fp16: "auto" (the trainer decides); estimated with --compute (default bf16)',
      );
    return {
      format: 'deepspeed',
      model: null,
      flags: ds.flags,
      warnings: ds.warnings,
      ignored: ds.ignored,
      unknown: ds.unknown,
      deepspeedRef: null,
      deepspeedInline: null,
      memoryKeys: DEEPSPEED_MEMORY_KEYS,
    };
  },
};

/** Accelerate YAML: its launcher keys, and no model. */
export const ACCELERATE_READER: ConfigReader = {
  format: 'accelerate',
  name: 'Accelerate YAML',
  order: 50,
  detect: (doc) =>
    hasAny(doc, ['distributed_type', 'compute_environment', 'num_processes']) &&
    !hasAny(doc, ['base_model', 'model_name_or_path', 'model']),
  map: (doc) => mapAccelerate(doc),
  deepspeed: NAMED_DEEPSPEED,
};

export const HF_TRAINER_READERS: readonly ConfigReader[] = [
  // LLaMA-Factory v1 configs, before axolotl (they share keys).
  {
    format: 'llamafactory',
    name: LLAMAFACTORY,
    order: 80,
    detect: isLlamaFactoryV1,
    map: mapLlamaFactory,
    deepspeed: NAMED_DEEPSPEED,
  },
  {
    format: 'axolotl',
    name: 'axolotl YAML',
    order: 90,
    detect: (doc) =>
      hasAny(doc, [
        'base_model',
        'sequence_len',
        'micro_batch_size',
        'adapter',
        'lora_target_linear',
      ]),
    map: mapAxolotl,
    deepspeed: NAMED_DEEPSPEED,
  },
  {
    format: 'llamafactory',
    name: LLAMAFACTORY,
    order: 100,
    detect: (doc) =>
      hasAny(doc, [
        'finetuning_type',
        'cutoff_len',
        'lora_target',
        'quantization_bit',
        'stage',
        'template',
      ]),
    map: mapLlamaFactory,
    deepspeed: NAMED_DEEPSPEED,
  },
  {
    format: 'hf-args',
    name: 'Hugging Face TrainingArguments / TRL JSON',
    order: 110,
    command: trainCommandOf,
    detect: (doc) =>
      hasAny(doc, [
        'per_device_train_batch_size',
        'optim',
        'output_dir',
        'gradient_accumulation_steps',
        'model_name_or_path',
        // TRL GRPOConfig / DPOConfig written alone (trl/trainer/grpo_config.py, dpo_config.py v1.9.0).
        'num_generations',
        'use_vllm',
        'reward_funcs',
        'max_completion_length',
        'max_prompt_length',
        'precompute_ref_log_probs',
        'grpo_config',
        'dpo_config',
      ]),
    map: (doc, file, keys) => mapHfArgs(doc, file, keys),
    deepspeed: NAMED_DEEPSPEED,
  },
];
