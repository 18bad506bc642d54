/**
 * `--from` for the unsloth-args.json that `vramplan launch` writes (./launch.ts): FastLanguageModel
 * from_pretrained / get_peft_model kwargs and a TRL SFTConfig → contract flags (framework unsloth).
 * Keys as read at unsloth 015bdef (2026.8.19) loader.py / llama.py and TRL v0.24.0 sft_config.py.
 */
import type { ConfigReader } from '../def.js';
import {
  FieldReader,
  type FromFlags,
  type FromMapping,
  isRecord,
  targetsOf,
  type UpstreamKeys,
  loraDropoutInto,
} from '../../from/common.js';
import { mapTrainerArgs, TRAINER_MEMORY_KEYS } from '../hf/from/hf-args.js';
import { mapTrlObjective, trlObjectiveOf } from '../hf/from/trl-objective.js';
import { FSDP2_ENV, FSDP2_LAYOUT_ENV, LAYOUT_OF_ZERO } from './launch-multi.js';

/** The TRL config blocks unsloth-args.json may carry (SFT, or the trainer `trainer` names: objective.ts). */
const BLOCKS = ['sft_config', 'dpo_config', 'orpo_config', 'kto_config', 'grpo_config'] as const;

/** An unsloth-args.json: the from_pretrained block beside a TRL config block. */
export const isUnslothArgs = (doc: Record<string, unknown>): boolean =>
  isRecord(doc.from_pretrained) && BLOCKS.some((b) => isRecord(doc[b]));

const UNSLOTH_MEMORY_KEYS = [
  ...TRAINER_MEMORY_KEYS,
  'max_length',
  'model_name',
  'max_seq_length',
  'dtype',
  'load_in_4bit',
  'load_in_8bit',
  'full_finetuning',
  'use_gradient_checkpointing',
  'unsloth_tiled_mlp',
  'r',
  'target_modules',
  'fast_inference',
  'gpu_memory_utilization',
  'num_generations',
  'max_completion_length',
  'max_prompt_length',
  'use_vllm',
  'beta',
  'precompute_ref_log_probs',
] as const;

const DTYPES: Record<string, string> = { bfloat16: 'bf16', float16: 'fp16', float32: 'fp32' };
const ALL_LINEAR = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

export function mapUnsloth(
  doc: Record<string, unknown>,
  _file: string | undefined,
  keys: UpstreamKeys,
): FromMapping {
  const hfArgsKeys = keys('hf-args');
  const warnings: string[] = [];
  const flags: FromFlags = { framework: 'unsloth' };
  const load = new FieldReader(doc.from_pretrained as Record<string, unknown>, 'from_pretrained.');
  const block = BLOCKS.find((b) => isRecord(doc[b])) ?? 'sft_config';
  const sft = new FieldReader(doc[block] as Record<string, unknown>, `${block}.`);
  const peftDoc = doc.get_peft_model;
  const peft = isRecord(peftDoc) ? new FieldReader(peftDoc, 'get_peft_model.') : null;
  const model = load.str('model_name') ?? null;
  // The Trainer fields (batch, accumulation, bf16/fp16, optim); SFTConfig.gradient_checkpointing is
  // overridden below by Unsloth's own use_gradient_checkpointing.
  mapTrainerArgs(sft, flags, warnings);
  const objective = mapObjective(doc, sft, load, flags);
  // Sequence: SFTConfig.max_length (the launcher may raise from_pretrained's max_seq_length to 512); GRPO's
  // is its prompt + completion tokens.
  const seq = sft.int('max_length') ?? load.int('max_seq_length');
  if (seq !== undefined && objective !== 'grpo') flags.seq = seq;
  const q4 = load.bool('load_in_4bit');
  const q8 = load.bool('load_in_8bit');
  const full = load.bool('full_finetuning');
  // from_pretrained's load_in_4bit defaults to True (loader.py#L414).
  const fourBit = q4 ?? true;
  if (full) flags.method = 'full';
  else if (fourBit) {
    flags.method = 'qlora';
    // Unsloth 4-bit is NF4 with double quantization (llama.py#L2620-L2626).
    flags.weights = 'nf4';
    flags['double-quant'] = true;
  } else {
    flags.method = 'lora';
    if (q8) flags.weights = 'int8';
  }
  const dtype = load.str('dtype');
  if (dtype !== undefined && DTYPES[dtype] && flags.weights === undefined)
    flags.weights = DTYPES[dtype];
  const gc = (peft ?? load).raw('use_gradient_checkpointing');
  if (peft) load.used.add('use_gradient_checkpointing');
  // "unsloth" offloads layer inputs to CPU; True is plain layer checkpointing; the default is "unsloth".
  flags.checkpointing = gc === false ? 'none' : gc === true ? 'full' : 'offload';
  // from_pretrained(unsloth_tiled_mlp=True): the MLPs run in sequence tiles (loader.py @015bdef0); default False.
  if (load.bool('unsloth_tiled_mlp') === true) flags['tiled-mlp'] = true;
  if (peft && !full) {
    const rank = peft.int('r');
    if (rank !== undefined) flags['lora-rank'] = rank;
    // FastLanguageModel.get_peft_model(lora_dropout = 0) (unsloth/models/llama.py): 0, what the profile counts, unset.
    loraDropoutInto(flags, peft.fraction('lora_dropout'));
    const mods = peft.list('target_modules');
    if (mods) {
      const t = targetsOf(mods, 'get_peft_model.target_modules', warnings);
      const linear = ALL_LINEAR.every((n) => t.includes(n));
      const extra = t.filter((n) => n === 'embed' || n === 'lm_head');
      if (linear) flags['lora-targets'] = ['all-linear', ...extra].join(',');
      else if (t.length > 0) flags['lora-targets'] = t.join(',');
    }
  }
  const launch = mapTorchrun(doc.torchrun, flags, warnings);
  const rest = [
    ...launch.map((k) => `torchrun.${k}`),
    ...load.unused().map((k) => `from_pretrained.${k}`),
    ...(peft?.unused().map((k) => `get_peft_model.${k}`) ?? []),
    ...sft.unused(),
  ];
  const known = (k: string) =>
    k.startsWith('from_pretrained.') ||
    k.startsWith('get_peft_model.') ||
    k.startsWith('torchrun.') ||
    hfArgsKeys.has(k);
  return {
    format: 'unsloth',
    model,
    flags,
    warnings,
    ignored: rest.filter(known),
    unknown: rest.filter((k) => !known(k)),
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys: UNSLOTH_MEMORY_KEYS,
  };
}

/**
 * DPO / GRPO (`trainer` and its TRL config block: objective.ts) into `flags`; GRPO's shared-weights vLLM
 * share is from_pretrained's gpu_memory_utilization (default 0.5, loader.py#L430 at unsloth 015bdef).
 */
function mapObjective(
  doc: Record<string, unknown>,
  block: FieldReader,
  load: FieldReader,
  flags: FromFlags,
): string | null {
  const trainer = typeof doc.trainer === 'string' ? doc.trainer : undefined;
  const objective = isRecord(doc.sft_config) ? null : trlObjectiveOf({}, trainer);
  if (objective === null || objective === 'sft') return null;
  mapTrlObjective(block, objective, flags);
  if (objective !== 'grpo') return objective;
  const fast = load.bool('fast_inference');
  const share = load.raw('gpu_memory_utilization');
  if (fast && flags.rollout === 'vllm-colocate')
    flags['rollout-memory'] = typeof share === 'number' ? share : 0.5;
  else load.used.add('gpu_memory_utilization');
  // max_lora_rank sizes vLLM's LoRA slots (at least r): no plan option of its own.
  load.used.add('max_lora_rank');
  return objective;
}

/** Unsloth's launch JSON (unsloth-args.json), before the Trainer's arguments it carries. */
export const UNSLOTH_READER: ConfigReader = {
  format: 'unsloth',
  name: 'Unsloth launch JSON (unsloth-args.json)',
  order: 30,
  detect: isUnslothArgs,
  map: mapUnsloth,
};

/**
 * The `torchrun` block launch writes for several GPUs (launch-multi.ts): the GPU count, and the ZeRO stage its
 * env names: DDP without UNSLOTH_FSDP2, FSDP2's fit layout as 2, its sharded layout as 3 (multi-gpu.ts). Returns
 * the block's keys it did not read.
 */
function mapTorchrun(block: unknown, flags: FromFlags, warnings: string[]): string[] {
  if (!isRecord(block)) return [];
  const t = new FieldReader(block, 'torchrun.');
  const gpus = (t.int('nproc_per_node') ?? 1) * (t.int('nnodes') ?? 1);
  if (gpus > 1) flags.gpus = gpus;
  const env = t.raw('env');
  const vars = isRecord(env) ? env : {};
  const on = ['1', 'true', 'native'].includes(String(vars[FSDP2_ENV] ?? '').toLowerCase());
  const layout = String(vars[FSDP2_LAYOUT_ENV] ?? 'auto').toLowerCase();
  const zero = Object.entries(LAYOUT_OF_ZERO).find(([, l]) => l === layout)?.[0];
  if (!on) flags.zero = 0;
  else if (zero !== undefined) flags.zero = Number(zero);
  else {
    // Unsloth picks the layout by memory (fsdp2_perf.py plan_fsdp2_layout): estimated as the sharded one.
    flags.zero = 3;
    warnings.push(
      `torchrun.env.${FSDP2_LAYOUT_ENV} ${layout}: Unsloth picks its FSDP2 layout by memory; estimated as the sharded layout (--zero 3; the fit layout is --zero 2)`,
    );
  }
  return t.unused();
}
