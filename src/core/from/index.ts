/**
 * `--from <file>`: which tool wrote a config, its mapping to contract flags, the DeepSpeed JSON it names,
 * and the merge with the command line (flags given beside --from win). Pure; src/io/from reads files.
 */
import { mapAccelerate } from '../engines/hf/from/accelerate.js';
import { mapAxolotl } from '../engines/hf/from/axolotl.js';
import {
  FORMAT_NAMES,
  FromError,
  type FromFlags,
  type FromFormat,
  type FromMapping,
  isRecord,
} from './common.js';
import {
  DEEPSPEED_MEMORY_KEYS,
  type DeepSpeedMapping,
  mapDeepSpeed,
} from '../engines/hf/from/deepspeed.js';
import { mapHfArgs } from '../engines/hf/from/hf-args.js';
import { isLlamaFactoryV1, mapLlamaFactory } from '../engines/hf/from/llamafactory.js';
import { mapTorchtune } from '../engines/torchtune/from.js';
import { mapTorchtitan, TORCHTITAN_DOC_KEY } from '../engines/torchtitan/from.js';
import { isUnslothArgs, mapUnsloth } from '../engines/unsloth/from.js';
import { mapLitgpt } from '../engines/litgpt/from.js';
import { mapServeConfig, serveConfigFormat } from './serve-map.js';
import { isSkyTask, mapSkyPilot } from './skypilot.js';

export { FORMAT_NAMES, FromError, mapDeepSpeed, DEEPSPEED_MEMORY_KEYS };
export type { DeepSpeedMapping, FromFlags, FromFormat, FromMapping };

const hasAny = (doc: Record<string, unknown>, keys: readonly string[]) =>
  keys.some((k) => k in doc);

/** The tool a parsed config belongs to, from the keys only that tool uses; null when none matches. */
export function detectFormat(doc: Record<string, unknown>): FromFormat | null {
  if (isRecord(doc[TORCHTITAN_DOC_KEY])) return 'torchtitan';
  if (isSkyTask(doc)) return 'skypilot';
  if (isUnslothArgs(doc)) return 'unsloth';
  if (
    hasAny(doc, ['zero_optimization', 'train_micro_batch_size_per_gpu', 'train_batch_size']) &&
    !hasAny(doc, ['per_device_train_batch_size', 'base_model', 'model_name_or_path'])
  )
    return 'deepspeed';
  if (
    hasAny(doc, ['distributed_type', 'compute_environment', 'num_processes']) &&
    !hasAny(doc, ['base_model', 'model_name_or_path', 'model'])
  )
    return 'accelerate';
  // torchtune configs instantiate components: any top-level block with a _component_ (model, policy_model...).
  if (Object.values(doc).some((v) => isRecord(v) && typeof v._component_ === 'string'))
    return 'torchtune';
  // LitGPT setup() takes checkpoint_dir at the top and TrainArgs under train (litgpt/finetune/lora.py).
  if (
    'checkpoint_dir' in doc &&
    (isRecord(doc.train) || hasAny(doc, ['precision', 'quantize', 'lora_r']))
  )
    return 'litgpt';
  if (isLlamaFactoryV1(doc)) return 'llamafactory';
  if (
    hasAny(doc, ['base_model', 'sequence_len', 'micro_batch_size', 'adapter', 'lora_target_linear'])
  )
    return 'axolotl';
  if (
    hasAny(doc, [
      'finetuning_type',
      'cutoff_len',
      'lora_target',
      'quantization_bit',
      'stage',
      'template',
    ])
  )
    return 'llamafactory';
  if (
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
    ])
  )
    return 'hf-args';
  // vLLM / SGLang --config YAML: the servers' own flag names as keys.
  return serveConfigFormat(doc);
}

/** `file`: the config's path (a TRL config's trainer may be named only by it). */
export function mapConfig(
  doc: Record<string, unknown>,
  format: FromFormat,
  file?: string,
): FromMapping {
  switch (format) {
    case 'axolotl':
      return mapAxolotl(doc);
    case 'llamafactory':
      return mapLlamaFactory(doc);
    case 'torchtune':
      return mapTorchtune(doc);
    case 'torchtitan':
      return mapTorchtitan(doc);
    case 'hf-args':
      return mapHfArgs(doc, file);
    case 'accelerate':
      return mapAccelerate(doc);
    case 'unsloth':
      return mapUnsloth(doc);
    case 'litgpt':
      return mapLitgpt(doc);
    case 'vllm':
    case 'sglang':
      return mapServeConfig(doc, format);
    case 'skypilot':
      return mapSkyPilot(doc);
    case 'llama.cpp':
      throw new FromError(
        '(file)',
        'a YAML/JSON document',
        'a llama-server command line or serve.sh',
      );
    case 'deepspeed': {
      const ds = mapDeepSpeed(doc);
      if (ds.precisionAuto)
        ds.warnings.push(
          'bf16/fp16: "auto" (the trainer decides); estimated with --compute (default bf16)',
        );
      return {
        format,
        model: null,
        flags: ds.flags,
        warnings: ds.warnings,
        ignored: ds.ignored,
        unknown: ds.unknown,
        deepspeedRef: null,
        deepspeedInline: null,
        memoryKeys: DEEPSPEED_MEMORY_KEYS,
      };
    }
  }
}

/**
 * A DeepSpeed config named by the main file: its stage, offload and engine win; its micro-batch and
 * accumulation fill in what the main file left out ("auto" defers to the trainer's values).
 */
export function withDeepSpeed(m: FromMapping, ds: DeepSpeedMapping, name: string): FromMapping {
  const flags: FromFlags = { ...m.flags };
  for (const [k, v] of Object.entries(ds.flags)) {
    if ((k === 'batch' || k === 'grad-accum') && flags[k] !== undefined) continue;
    // The trainer's bf16/fp16 flag decides when DeepSpeed says "auto"; a fixed DeepSpeed value wins.
    if (k === 'compute' && ds.precisionAuto) continue;
    flags[k] = v;
  }
  if (
    flags.framework === 'deepspeed' &&
    flags.weights === 'fp32' &&
    (flags.method ?? 'full') === 'full'
  )
    // DeepSpeed bf16/fp16 mode casts the model to 16 bits and keeps its own fp32 master partition.
    flags.weights = flags.compute === 'fp16' ? 'fp16' : 'bf16';
  return {
    ...m,
    flags,
    warnings: [...m.warnings, ...ds.warnings.map((w) => `${name}: ${w}`)],
    ignored: [...m.ignored, ...ds.ignored.map((k) => `${name}:${k}`)],
    unknown: [...m.unknown, ...ds.unknown.map((k) => `${name}:${k}`)],
  };
}

/**
 * The flags `estimate` runs with: the file's, then the command line's on top. A method given on the
 * command line drops the file's weight dtype when the two cannot go together (full ⇄ quantized).
 */
export function mergeFlags(
  m: FromMapping,
  cli: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const file: Record<string, unknown> = { ...m.flags };
  if (cli.method !== undefined && cli.weights === undefined && cli.method !== file.method) {
    delete file.weights;
    delete file['double-quant'];
    if (cli.method === 'inference') {
      delete file.optimizer;
      delete file['optimizer-in-backward'];
    }
  }
  const out: Record<string, unknown> = { ...file, ...cli };
  const gpus = Number(out.gpus ?? 1);
  if (gpus > 1 && out.zero === undefined && m.multiGpuZero) out.zero = m.multiGpuZero;
  const sixteen = out.weights === undefined || out.weights === 'bf16' || out.weights === 'fp16';
  if (
    out.framework === 'deepspeed' &&
    (out.method ?? 'full') === 'full' &&
    sixteen &&
    cli['master-weights'] === undefined &&
    Number(out.zero ?? 0) > 0
  )
    // DeepSpeed ZeRO in bf16/fp16 keeps an fp32 master partition: https://www.deepspeed.ai/docs/config-json/#bfloat16-training-options
    out['master-weights'] = true;
  return out;
}

/** The contract options key each flag sets (so `options` can say which came from the file). */
export const flagKey = (flag: string): string =>
  flag.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());

export { FromError as FromConfigError };
export const formatName = (f: FromFormat): string => FORMAT_NAMES[f];
export const isFormat = (s: string): s is FromFormat => s in FORMAT_NAMES;
export const describeFormats = (): string => Object.values(FORMAT_NAMES).join(', ');
export const throwIfNotRecord = (doc: unknown, field: string): Record<string, unknown> => {
  if (!isRecord(doc)) throw new FromError(field, doc, 'a mapping of keys to values');
  return doc;
};
