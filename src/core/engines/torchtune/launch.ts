/** torchtune recipe config YAML, for the models torchtune ships builders for. */
import { Document } from 'yaml';
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import {
  dataParallel,
  isAdapter,
  learningRate,
  MASTER_PORT,
  nodesOf,
} from '../../launch/common.js';
import { SLURM_FILE, slurmScript } from '../../launch/slurm.js';
import { LORA_DROPOUT, loraAlpha } from '../../launch/common.js';
import { roundsStochastically } from '../profile.js';
import { TORCHTUNE_PROFILE } from './profile.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';

export const TORCHTUNE_FILE = 'torchtune.yaml';

interface TuneModel {
  /** torchtune.models.<module> */
  module: string;
  /** Builder suffix: <module>_<size>, lora_<module>_<size>, qlora_<module>_<size>. */
  size: string;
  tokenizer: string;
  /** FullModelHFCheckpointer model_type. */
  modelType: string;
  qlora: boolean;
}

// Builders in torchtune/models/*/_model_builders.py: https://pytorch.org/torchtune/stable/api_ref_models.html
const L2 = {
  module: 'llama2',
  tokenizer: 'torchtune.models.llama2.llama2_tokenizer',
  modelType: 'LLAMA2',
  qlora: true,
};
const L3 = { tokenizer: 'torchtune.models.llama3.llama3_tokenizer', qlora: true };
const TUNE_MODELS: Record<string, TuneModel> = {
  'llama-2-7b': { ...L2, size: '7b' },
  'llama-2-13b': { ...L2, size: '13b' },
  'llama-2-70b': { ...L2, size: '70b' },
  'codellama-7b': {
    ...L2,
    module: 'code_llama2',
    size: '7b',
    tokenizer: 'torchtune.models.llama2.llama2_tokenizer',
  },
  'codellama-13b': {
    ...L2,
    module: 'code_llama2',
    size: '13b',
    tokenizer: 'torchtune.models.llama2.llama2_tokenizer',
  },
  'llama-3-8b': { ...L3, module: 'llama3', size: '8b', modelType: 'LLAMA3' },
  'llama-3-70b': { ...L3, module: 'llama3', size: '70b', modelType: 'LLAMA3' },
  'llama-3.1-8b': { ...L3, module: 'llama3_1', size: '8b', modelType: 'LLAMA3' },
  'llama-3.1-70b': { ...L3, module: 'llama3_1', size: '70b', modelType: 'LLAMA3' },
  'llama-3.1-405b': { ...L3, module: 'llama3_1', size: '405b', modelType: 'LLAMA3' },
  'llama-3.2-1b': { ...L3, module: 'llama3_2', size: '1b', modelType: 'LLAMA3_2' },
  'llama-3.2-3b': { ...L3, module: 'llama3_2', size: '3b', modelType: 'LLAMA3_2' },
  'mistral-7b-v0.1': {
    module: 'mistral',
    size: '7b',
    tokenizer: 'torchtune.models.mistral.mistral_tokenizer',
    modelType: 'MISTRAL',
    qlora: true,
  },
  'gemma-2b': {
    module: 'gemma',
    size: '2b',
    tokenizer: 'torchtune.models.gemma.gemma_tokenizer',
    modelType: 'GEMMA',
    qlora: true,
  },
  'gemma-7b': {
    module: 'gemma',
    size: '7b',
    tokenizer: 'torchtune.models.gemma.gemma_tokenizer',
    modelType: 'GEMMA',
    qlora: true,
  },
  'phi-3-mini-4k-instruct': {
    module: 'phi3',
    size: 'mini',
    tokenizer: 'torchtune.models.phi3.phi3_mini_tokenizer',
    modelType: 'PHI3_MINI',
    qlora: true,
  },
};

// Optimizer components (torch and bitsandbytes classes, as in torchtune's shipped configs).
const TUNE_OPTIM: Partial<Record<Optimizer, Record<string, unknown>>> = {
  adamw: { _component_: 'torch.optim.AdamW', fused: true, weight_decay: 0.0 },
  'adamw-8bit': { _component_: 'bitsandbytes.optim.AdamW8bit' },
  'paged-adamw': { _component_: 'bitsandbytes.optim.PagedAdamW' },
  'paged-adamw-8bit': { _component_: 'bitsandbytes.optim.PagedAdamW8bit' },
  lion: { _component_: 'bitsandbytes.optim.Lion' },
  adafactor: { _component_: 'torch.optim.Adafactor' },
  sgd: { _component_: 'torch.optim.SGD', momentum: 0.0 },
  'sgd-momentum': { _component_: 'torch.optim.SGD', momentum: 0.9 },
};

// Pure-bf16 full fine-tunes get torchao's optimizers with stochastic rounding of the bf16 weight update
// (https://github.com/pytorch/ao/blob/v0.10.0/torchao/optim/README.md, "Stochastic rounding for BF16 weight").
const TUNE_OPTIM_SR: Partial<Record<Optimizer, Record<string, unknown>>> = {
  'adamw-8bit': { _component_: 'torchao.optim.AdamW8bit', bf16_stochastic_round: true },
};

function optimizerComponent(o: EstimateOptions): Record<string, unknown> | undefined {
  return (roundsStochastically(TORCHTUNE_PROFILE, o) ? TUNE_OPTIM_SR : TUNE_OPTIM)[o.optimizer];
}

/** Why torchtune cannot run the plan, or null. */
function blocker(x: LaunchPlan, m: TuneModel | undefined): string | null {
  const o = x.options;
  if (o.method === 'inference') return 'the plan is inference: torchtune recipes are for training';
  if (!m)
    return `torchtune ships no model builder for '${x.arch.id}' (llama2/3/3.1/3.2, code_llama2, mistral, gemma, phi3 are mapped)`;
  if (o.compute === 'fp16')
    return 'torchtune trains in bf16 or fp32 only (dtype: fp16 is not supported)';
  if (o.method === 'qlora' && o.weights !== 'nf4')
    return `torchtune QLoRA quantizes to NF4 only (plan has ${o.weights})`;
  if (o.method === 'lora' && o.weights !== 'bf16' && o.weights !== 'fp32')
    return `torchtune LoRA needs bf16/fp32 base weights (plan has ${o.weights}; use qlora for NF4)`;
  if (o.method === 'qlora' && !m.qlora) return `torchtune has no QLoRA builder for ${x.arch.id}`;
  if (o.tp > 1 || o.pp > 1)
    return 'tensor/pipeline parallel plans are out of scope for these torchtune recipes';
  if (dataParallel(o) === 1 && o.offload !== 'none')
    return 'single-device torchtune recipes do not offload optimizer states or parameters';
  if (o.offload === 'optimizer')
    return 'torchtune FSDP offloads parameters, gradients and optimizer together (fsdp_cpu_offload); optimizer-only offload is not available';
  if (!TUNE_OPTIM[o.optimizer])
    return `optimizer ${o.optimizer} has no torchtune component mapping`;
  if (o.optimizerInBackward && (isAdapter(o) || dataParallel(o) > 1))
    return 'optimizer_in_bwd is supported by full_finetune_single_device only';
  if (o.loraTargets.includes('embed'))
    return 'torchtune LoRA builders cannot adapt the token embedding';
  if (o.sparsity > 0) return 'sparse weights have no torchtune switch';
  return null;
}

/** Why torchtune cannot run `x` (no builder for the model, dtype, recipe limits), or null. */
export const torchtuneBlocker = (x: LaunchPlan): string | null =>
  blocker(x, TUNE_MODELS[x.arch.id]);

const recipeOf = (o: EstimateOptions): string =>
  `${isAdapter(o) ? 'lora' : 'full'}_finetune_${dataParallel(o) > 1 ? 'distributed' : 'single_device'}`;

// Recipe configs: https://pytorch.org/torchtune/stable/recipes/recipes_overview.html
// Long on purpose: it writes one torchtune recipe config, key by key in the file's own order.
export function emitTorchtune(x: LaunchInput): EngineOutput {
  const engine = 'torchtune';
  const o = x.options;
  const m = TUNE_MODELS[x.arch.id];
  const why = blocker(x, m);
  if (why || !m) return { engine, ok: false, reason: why ?? 'unsupported' };
  const notes: string[] = [];
  const prefix = o.method === 'qlora' ? 'qlora_' : o.method === 'lora' ? 'lora_' : '';
  const model: Record<string, unknown> = {
    _component_: `torchtune.models.${m.module}.${prefix}${m.module}_${m.size}`,
  };
  if (isAdapter(o)) {
    const attn: Record<string, string> = {
      q: 'q_proj',
      k: 'k_proj',
      v: 'v_proj',
      o: 'output_proj',
    };
    model.lora_attn_modules = o.loraTargets.filter((t) => t in attn).map((t) => attn[t]);
    const mlp = o.loraTargets.filter((t) => t === 'gate' || t === 'up' || t === 'down');
    model.apply_lora_to_mlp = mlp.length > 0;
    if (mlp.length > 0 && mlp.length < 3)
      notes.push('apply_lora_to_mlp adapts all three MLP projections (the plan named fewer)');
    model.apply_lora_to_output = o.loraTargets.includes('lm_head');
    model.lora_rank = o.loraRank;
    model.lora_alpha = loraAlpha(o.loraRank);
    model.lora_dropout = LORA_DROPOUT;
  }
  const dir = `./models/${x.arch.id}`;
  const distributed = dataParallel(o) > 1;
  const config: Record<string, unknown> = {
    output_dir: './outputs',
    model,
    tokenizer: { _component_: m.tokenizer, path: `${dir}/tokenizer.model`, max_seq_len: o.seq },
    checkpointer: {
      _component_: 'torchtune.training.FullModelHFCheckpointer',
      checkpoint_dir: dir,
      checkpoint_files: { filename_format: 'model-{}-of-{}.safetensors', max_filename: '00002' },
      recipe_checkpoint: null,
      output_dir: '${output_dir}',
      model_type: m.modelType,
    },
    resume_from_checkpoint: false,
    dataset: { _component_: 'torchtune.datasets.alpaca_cleaned_dataset', packed: false },
    seed: null,
    shuffle: true,
    batch_size: o.batch,
    epochs: 1,
    max_steps_per_epoch: null,
    gradient_accumulation_steps: x.gradAccum,
    optimizer: { ...optimizerComponent(o), lr: learningRate(o) },
    lr_scheduler: {
      _component_: 'torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup',
      num_warmup_steps: 100,
    },
    // CEWithChunkedOutputLoss never materialises full fp32 logits (torchtune memory optimizations guide).
    loss: {
      _component_: o.chunkedLoss
        ? 'torchtune.modules.loss.CEWithChunkedOutputLoss'
        : 'torch.nn.CrossEntropyLoss',
    },
    device: 'cuda',
    dtype: o.compute,
    enable_activation_checkpointing: o.checkpointing !== 'none',
    enable_activation_offloading: o.checkpointing === 'offload',
    compile: false,
    log_every_n_steps: 1,
    log_peak_memory_stats: true,
    metric_logger: {
      _component_: 'torchtune.training.metric_logging.DiskLogger',
      log_dir: '${output_dir}/logs',
    },
  };
  if (!isAdapter(o) && !distributed) config.optimizer_in_bwd = o.optimizerInBackward;
  if (distributed) {
    config.fsdp_cpu_offload = o.offload === 'optimizer+params';
    // torchtune shards every distributed run (FSDP2); reshard after forward = ZeRO-3, else ZeRO-2.
    config.fsdp_reshard_after_forward = o.zero === 3;
    if (o.zero === 0 || o.zero === 1)
      notes.push(
        'torchtune distributed recipes always shard with FSDP: uses less memory than the planned ZeRO stage',
      );
  } else if (o.zero > 0)
    notes.push('single-device recipe: ZeRO sharding does not apply on one GPU');
  if (o.checkpointing === 'selective')
    notes.push('selective recompute maps to full activation checkpointing (less memory, slower)');
  if (o.attention !== 'sdpa')
    notes.push(
      'torchtune attention is SDPA (flash kernels where available); the attention switch does not apply',
    );
  if (o.method === 'qlora' && !o.doubleQuant)
    notes.push('torchao NF4 always quantizes the scales (double quantization on)');
  notes.push(
    `checkpoint_dir, tokenizer path and checkpoint_files are placeholders: download with 'tune download ${x.modelRef} --output-dir ${dir}'`,
  );
  // YAML 1.1 mode quotes no/on/yes, which PyYAML (Accelerate, axolotl, torchtune readers) would read as booleans.
  const doc = new Document(config, { version: '1.1' });
  // tune run passes torchrun's flags through: --nnodes, --node_rank and a c10d rendezvous across machines.
  const { nodes, perNode } = nodesOf(x);
  const launch =
    nodes > 1
      ? `tune run --nnodes ${nodes} --nproc_per_node ${perNode} --node_rank $NODE_RANK --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:${MASTER_PORT} ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`
      : distributed
        ? `tune run --nproc_per_node ${o.gpus} ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`
        : `tune run ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`;
  doc.commentBefore = ` torchtune config (generated by vramplan). Run: ${launch}`;
  // torchtune 0.6.1 (April 2025) with the torch and torchao it was released against
  // (https://github.com/pytorch/torchtune/releases/tag/v0.6.1); bitsandbytes for its optimizers.
  const pins = ['torch==2.7.0', 'torchtune==0.6.1', 'torchao==0.10.0'];
  const bnbOptim = String(optimizerComponent(o)?._component_ ?? '').startsWith('bitsandbytes');
  if (bnbOptim) pins.push('bitsandbytes==0.48.1');
  return {
    engine,
    ok: true,
    files: [
      { path: TORCHTUNE_FILE, content: doc.toString() },
      ...(nodes > 1 ? [{ path: SLURM_FILE, content: slurmScript(x, launch) }] : []),
      {
        path: 'requirements.txt',
        content: `# Versions the generated files were written for (generated by vramplan)\n${pins.join('\n')}\n`,
      },
    ],
    notes,
  };
}

export const torchtuneRecipe = recipeOf;
