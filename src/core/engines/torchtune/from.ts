/**
 * torchtune recipe YAML → contract flags. Config keys as the shipped recipes use them:
 * https://github.com/pytorch/torchtune/tree/main/recipes/configs ; model builders:
 * https://github.com/pytorch/torchtune/tree/main/torchtune/models (<family>/_model_builders.py).
 */
import type { ConfigReader } from '../def.js';
import {
  FieldReader,
  FromError,
  type FromFlags,
  type FromMapping,
  isRecord,
  loraDropoutInto,
} from '../../from/common.js';
import { LONGEST_TO_MEAN_COMPLETION, meanCompletion } from '../../time/completion-length.js';

const MEMORY_KEYS = [
  'model',
  'tokenizer',
  'batch_size',
  'gradient_accumulation_steps',
  'dtype',
  'enable_activation_checkpointing',
  'enable_activation_offloading',
  'optimizer',
  'optimizer_in_bwd',
  'loss',
  'compile',
  'fsdp_cpu_offload',
  'fsdp_reshard_after_forward',
  'tensor_parallel_dim',
  'custom_sharded_layers',
  'grpo_samples',
  'forward_batch_size',
  'max_generated_tokens',
] as const;

// Top-level keys of the shipped recipes that do not change per-GPU memory.
const OTHER_KEYS = new Set([
  'output_dir',
  'checkpointer',
  'resume_from_checkpoint',
  'save_adapter_weights_only',
  'dataset',
  'dataset_val',
  'run_val_every_n_steps',
  'batch_size_val',
  'seed',
  'shuffle',
  'lr_scheduler',
  'epochs',
  'max_steps_per_epoch',
  'clip_grad_norm',
  'metric_logger',
  'log_every_n_steps',
  'log_peak_memory_stats',
  'log_level',
  'device',
  'profiler',
  'collate_fn',
  'num_output_chunks',
  'quantizer',
  'ref_checkpointer',
  'save_last_epoch_only',
  'cudnn_deterministic_mode',
  'dataloader',
  'data_parallel_shard_dim',
  'data_parallel_replicate_dim',
  'low_cpu_ram',
]);

/** torchtune builder (family + size, without lora_/qlora_) → catalog id. */
const BUILDERS: Record<string, string> = {
  llama2_7b: 'llama-2-7b',
  llama2_13b: 'llama-2-13b',
  llama2_70b: 'llama-2-70b',
  code_llama2_7b: 'codellama-7b',
  code_llama2_13b: 'codellama-13b',
  code_llama2_34b: 'codellama-34b',
  llama3_8b: 'llama-3-8b',
  llama3_70b: 'llama-3-70b',
  llama3_1_8b: 'llama-3.1-8b',
  llama3_1_70b: 'llama-3.1-70b',
  llama3_1_405b: 'llama-3.1-405b',
  llama3_2_1b: 'llama-3.2-1b',
  llama3_2_3b: 'llama-3.2-3b',
  llama3_2_vision_11b: 'llama-3.2-11b-vision',
  llama3_3_70b: 'llama-3.3-70b-instruct',
  mistral_7b: 'mistral-7b-v0.1',
  gemma_2b: 'gemma-2b',
  gemma_7b: 'gemma-7b',
  gemma2_2b: 'gemma-2-2b',
  gemma2_9b: 'gemma-2-9b',
  gemma2_27b: 'gemma-2-27b',
  phi3_mini: 'phi-3-mini-4k-instruct',
  // torchtune/models/phi4/_model_builders.py phi4_14b at v0.6.1: the phi3 component builder at Phi-4's shape
  // (vocab 100,352, 40 layers, 40 heads, 10 KV heads, embed 5,120), the config microsoft/phi-4 publishes.
  phi4_14b: 'phi-4',
  qwen2_5_0_5b: 'qwen2.5-0.5b',
  qwen2_5_1_5b: 'qwen2.5-1.5b',
  qwen2_5_3b: 'qwen2.5-3b',
  qwen2_5_7b: 'qwen2.5-7b',
  qwen2_5_14b: 'qwen2.5-14b',
  qwen2_5_32b: 'qwen2.5-32b',
  qwen2_5_72b: 'qwen2.5-72b',
  qwen3_0_6b: 'qwen3-0.6b',
  qwen3_8b: 'qwen3-8b',
  qwen3_32b: 'qwen3-32b',
};

/** Optimizer components → contract optimizers (the components the shipped recipes name). */
const OPTIMIZERS: Record<string, string> = {
  'torch.optim.AdamW': 'adamw',
  'torch.optim.Adam': 'adamw',
  'torch.optim.SGD': 'sgd',
  'torch.optim.Adafactor': 'adafactor',
  'bitsandbytes.optim.AdamW8bit': 'adamw-8bit',
  'bitsandbytes.optim.PagedAdamW8bit': 'paged-adamw-8bit',
  'bitsandbytes.optim.PagedAdamW': 'paged-adamw',
  'bitsandbytes.optim.PagedAdamW32bit': 'paged-adamw',
  'bitsandbytes.optim.Lion': 'lion',
  'torchao.optim.AdamW8bit': 'adamw-8bit',
  'torchao.optim._AdamW': 'adamw',
  'torchao.prototype.low_bit_optim.AdamW8bit': 'adamw-8bit',
};

/** Losses that never materialise full fp32 logits (chunked or fused linear + cross-entropy). */
const CHUNKED_LOSSES = /CEWithChunkedOutputLoss|LinearCrossEntropyLoss|ChunkedCrossEntropy/;

const componentOf = (v: unknown): string | undefined =>
  isRecord(v) && typeof v._component_ === 'string' ? v._component_ : undefined;

/** optimizer._component_ into --optimizer (SGD with momentum is its own optimizer). */
function mapOptimizer(
  opt: Record<string, unknown> | undefined,
  flags: FromFlags,
  warnings: string[],
): void {
  const optName = componentOf(opt);
  // torchao's one-GPU CPUOffloadOptimizer (prototype/low_bit_optim/cpu_offload.py at v0.10.0): its default
  // optimizer_class, torch.optim.AdamW, stepped on the host.
  if (opt && optName && /(^|\.)CPUOffloadOptimizer$/.test(optName)) {
    flags.optimizer = 'adamw';
    flags.offload = 'optimizer';
    flags.zero = 0;
    if (opt.offload_gradients === true)
      warnings.push(
        'optimizer.offload_gradients: the gradients are counted on the GPU (not modelled)',
      );
    return;
  }
  if (opt && optName) {
    const o = OPTIMIZERS[optName];
    if (o === 'sgd' && typeof opt.momentum === 'number' && opt.momentum > 0)
      flags.optimizer = 'sgd-momentum';
    else if (o) flags.optimizer = o;
    else {
      flags.optimizer = 'adamw';
      warnings.push(`optimizer._component_: '${optName}' is not modelled; estimated as AdamW`);
    }
  }
}

/** The model block's method, NF4 and LoRA keys into `flags` (lora_/qlora_ builders: `kind`). */
function mapModelBlock(
  modelBlock: Record<string, unknown>,
  kind: string | undefined,
  flags: FromFlags,
  warnings: string[],
): void {
  const mr = new FieldReader(modelBlock, 'model.');
  mr.used.add('_component_');
  if (kind) {
    flags.method = kind === 'qlora_' ? 'qlora' : 'lora';
    // torchtune QLoRA stores the base weights as NF4 (torchao NF4Tensor), no double quantization of scales.
    if (kind === 'qlora_') {
      flags.weights = 'nf4';
      // NF4Tensor always quantizes its scalers (torchao dtypes/nf4tensor.py to_nf4): double quantization.
      flags['double-quant'] = true;
    }
    const rank = mr.int('lora_rank');
    if (rank !== undefined) flags['lora-rank'] = rank;
    // The lora_* model builders' `lora_dropout: float = 0.0` (torchtune v0.6.1 models/llama3_1/_model_builders.py):
    // 0, what the torchtune profile counts, stays unset.
    loraDropoutInto(flags, mr.fraction('lora_dropout'));
    const attn = mr.list('lora_attn_modules') ?? [];
    const names: Record<string, string> = {
      q_proj: 'q',
      k_proj: 'k',
      v_proj: 'v',
      output_proj: 'o',
    };
    const t: string[] = [];
    for (const a of attn) {
      const x = names[a];
      if (!x)
        throw new FromError('model.lora_attn_modules', a, 'q_proj, k_proj, v_proj, output_proj');
      t.push(x);
    }
    if (mr.bool('apply_lora_to_mlp')) t.push('gate', 'up', 'down');
    if (mr.bool('apply_lora_to_output')) t.push('lm_head');
    if (t.length > 0) flags['lora-targets'] = t.join(',');
    if (mr.bool('use_dora')) warnings.push('model.use_dora: DoRA magnitude vectors not modelled');
  } else flags.method = 'full';
}

/**
 * The GRPO recipe's keys (pytorch/torchtune@v0.6.1 recipes/dev/grpo_full_finetune_distributed.py and
 * recipes/configs/dev/3B_full_grpo.yaml): its loss (torchtune.dev.grpo.loss) makes the objective; each rank
 * expands its `batch_size` prompts to `grpo_samples` completions each (generate_trajectory), generated by the
 * recipe's own KV-cache decoding (rollout hf; `forward_batch_size` prompts at a time) up to
 * `max_generated_tokens`, and grpo_step trains on all batch_size x grpo_samples sequences at once; the
 * reference model is loaded from `ref_checkpointer`.
 */
function mapGrpo(
  r: FieldReader,
  loss: string | undefined,
  flags: FromFlags,
  warnings: string[],
): void {
  if (!loss || !/\.grpo\./.test(loss)) return;
  flags.objective = 'grpo';
  flags.rollout = 'hf';
  if (r.has('ref_checkpointer')) {
    flags.reference = 'model';
    r.used.add('ref_checkpointer');
  }
  r.int('forward_batch_size');
  const n = r.int('grpo_samples');
  if (n !== undefined) {
    flags.generations = n;
    flags.batch = Number(flags.batch ?? 1) * n;
  }
  const longest = r.int('max_generated_tokens');
  if (longest === undefined) return;
  const mean = meanCompletion(longest);
  flags['completion-tokens'] = mean;
  flags['max-completion-tokens'] = longest;
  warnings.push(
    `max_generated_tokens: ${longest} is the longest completion; read as --completion-tokens ${mean}, the mean (longest / ${LONGEST_TO_MEAN_COMPLETION}, the ratio of logged GRPO runs)`,
  );
}

// PPO recipe keys read into no flag: generation sampling, reward shaping, the step count and the three
// checkpointers of the other models (ppo_full_finetune_single_device.py at v0.6.1 reads each from cfg).
const PPO_OTHER_KEYS = [
  'reward_and_value_model',
  'ref_policy_checkpointer',
  'value_checkpointer',
  'reward_checkpointer',
  'num_steps',
  'enable_kv_cache',
  'temperature',
  'top_k',
  'min_response_length',
  'penalise_no_eos',
  'reward_penalty',
  'stop_token_ids',
  'whiten_rewards',
  'gamma',
  'lmbda',
  'kl_coeff',
];

/**
 * The PPO recipe's keys (pytorch/torchtune@v0.6.1 recipes/ppo_full_finetune_single_device.py and
 * recipes/configs/mistral/7B_full_ppo_low_memory.yaml): its loss (torchtune.rlhf.loss.PPOLoss) makes the
 * objective; each step generates `batch_size` trajectories with the recipe's own KV-cache decoding
 * (`forward_batch_size` at a time, up to `max_generated_tokens`), scores them with the reward and value model, then
 * runs `ppo_epochs` passes over mini-batches of `ppo_batch_size`, each split into `gradient_accumulation_steps`
 * micro-batches (ppo_batch_size // gradient_accumulation_steps sequences a backward).
 */
function mapPpo(
  r: FieldReader,
  loss: string | undefined,
  flags: FromFlags,
  warnings: string[],
): void {
  if (!loss || !/\.PPOLoss$/.test(loss)) return;
  flags.objective = 'ppo';
  flags.rollout = 'hf';
  const accum = r.int('gradient_accumulation_steps') ?? 1;
  const rollouts = r.int('batch_size');
  const mini = r.int('ppo_batch_size') ?? rollouts;
  if (mini !== undefined) {
    if (mini % accum !== 0)
      throw new FromError(
        'ppo_batch_size',
        mini,
        `a multiple of gradient_accumulation_steps (${accum})`,
      );
    flags.batch = mini / accum;
    if (rollouts !== undefined && rollouts !== mini)
      warnings.push(
        `batch_size ${rollouts} / ppo_batch_size ${mini}: estimated as one mini-batch of ${mini} trajectories per generation`,
      );
  }
  // generate_trajectory_batched generates and scores forward_batch_size trajectories at a time, its KV cache set up
  // at that batch (recipes/ppo_full_finetune_single_device.py:895 and :240 at v0.6.1).
  const chunk = r.int('forward_batch_size');
  if (chunk !== undefined) flags['rollout-chunk'] = chunk;
  // train() runs `for _ in range(self._ppo_epochs)` passes over the trajectory batch
  // (recipes/ppo_full_finetune_single_device.py:965 at v0.6.1; self._ppo_epochs = cfg.ppo_epochs, :386).
  const epochs = r.int('ppo_epochs');
  if (epochs !== undefined) flags['ppo-epochs'] = epochs;
  const longest = r.int('max_generated_tokens');
  // generation/_generation.py generate at v0.6.1: the batch decodes to max_generated_tokens unless every row hits a stop token.
  if (longest !== undefined) flags['completion-tokens'] = longest;
  for (const k of PPO_OTHER_KEYS) r.used.add(k);
}

// Long on purpose: one mapping per torchtune recipe key, each line standing alone.
export function mapTorchtune(doc: Record<string, unknown>): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = { framework: 'torchtune' };
  const warnings: string[] = [];
  // PPO/GRPO recipes name the trained model policy_model.
  const modelBlock = r.record(r.has('model') ? 'model' : 'policy_model');
  const component = componentOf(modelBlock);
  if (!modelBlock || !component)
    throw new FromError(
      'model._component_',
      modelBlock ?? null,
      'a torchtune model builder, e.g. torchtune.models.llama3_1.lora_llama3_1_8b',
    );
  const builder = component.split('.').at(-1)!;
  const m = /^(q?lora_)?(.+?)(_(base|instruct))?$/.exec(builder)!;
  const kind = m[1];
  const id = BUILDERS[m[2]!] ?? null;
  if (!id)
    warnings.push(
      `model._component_: no catalog model for ${component}; give --model (torchtune builders mapped: ${Object.keys(BUILDERS).join(', ')})`,
    );
  mapModelBlock(modelBlock, kind, flags, warnings);
  const tokenizer = r.record('tokenizer');
  const seq = tokenizer?.max_seq_len;
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0) flags.seq = seq;
  else if (seq !== undefined && seq !== null)
    throw new FromError('tokenizer.max_seq_len', seq, 'a positive integer or null');
  else
    warnings.push(
      'tokenizer.max_seq_len: null (samples keep their own length); the estimate uses --seq (default 2048)',
    );
  const batch = r.int('batch_size');
  if (batch !== undefined) flags.batch = batch;
  const accum = r.int('gradient_accumulation_steps');
  if (accum !== undefined) flags['grad-accum'] = accum;
  const dtype = r.str('dtype');
  if (dtype !== undefined) {
    if (dtype !== 'bf16' && dtype !== 'fp32')
      throw new FromError('dtype', dtype, 'bf16 or fp32 (torchtune recipes train in one dtype)');
    flags.compute = dtype;
    // One dtype for the whole model: weights and compute alike (no fp32 master copy).
    if (flags.method !== 'qlora') flags.weights = dtype;
  }
  const ac = r.bool('enable_activation_checkpointing');
  if (r.bool('enable_activation_offloading')) flags.checkpointing = 'offload';
  else if (ac) flags.checkpointing = 'full';
  mapOptimizer(r.record('optimizer'), flags, warnings);
  if (r.bool('optimizer_in_bwd')) flags['optimizer-in-backward'] = true;
  const loss = componentOf(r.record('loss'));
  if (loss && CHUNKED_LOSSES.test(loss)) flags['chunked-loss'] = true;
  // The DPO recipes' loss (torchtune.rlhf.loss.DPOLoss at v0.6.1): the objective; beta is not modelled.
  if (loss && /\.DPOLoss$/.test(loss)) flags.objective = 'dpo';
  mapGrpo(r, loss, flags, warnings);
  mapPpo(r, loss, flags, warnings);
  const compile = r.raw('compile');
  if (compile === true || isRecord(compile)) flags.compile = true;
  if (r.bool('fsdp_cpu_offload')) {
    flags.zero = 3;
    flags.offload = 'optimizer+params';
  }
  const reshard = r.bool('fsdp_reshard_after_forward');
  if (reshard === false && flags.offload === undefined) flags.zero = 2;
  const tp = r.int('tensor_parallel_dim');
  if (tp !== undefined && tp > 1) flags.tp = tp;
  r.used.add('custom_sharded_layers');
  const rest = r.unused();
  return {
    format: 'torchtune',
    model: id,
    flags,
    warnings,
    ignored: rest.filter((k) => OTHER_KEYS.has(k)),
    unknown: rest.filter((k) => !OTHER_KEYS.has(k)),
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys: MEMORY_KEYS,
    // The distributed recipes shard with FSDP FULL_SHARD (fsdp_reshard_after_forward defaults to True).
    multiGpuZero: flags.zero === undefined ? 3 : null,
  };
}

/** torchtune configs instantiate components: any top-level block with a _component_ (model, policy_model...). */
export const TORCHTUNE_READER: ConfigReader = {
  format: 'torchtune',
  name: 'torchtune recipe YAML',
  order: 60,
  detect: (doc) => Object.values(doc).some((v) => isRecord(v) && typeof v._component_ === 'string'),
  map: mapTorchtune,
};
