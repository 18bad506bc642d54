/**
 * What torchtune 0.6.1 ships, as the launcher names it: model builders, tokenizers, optimizer components
 * and the other `_component_` paths torchtune.yaml writes. Every path was read in the v0.6.1 tag
 * (https://github.com/pytorch/torchtune/tree/v0.6.1, commit a6290a5b40758f13bca61c386bc8756a49ef417e).
 */
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import { roundsStochastically } from '../profile.js';

/** The torchtune release the launcher writes for, and the tag its keys were checked against. */
export const TORCHTUNE_VERSION = '0.6.1';
export const TORCHTUNE_TAG = 'https://github.com/pytorch/torchtune/tree/v0.6.1';

export interface TuneModel {
  /** torchtune.models.<module> */
  module: string;
  /** Builder suffix: <module>_<size>, lora_<module>_<size>, qlora_<module>_<size>. */
  size: string;
  tokenizer: string;
  /** FullModelHFCheckpointer model_type (torchtune/training/checkpointing/_utils.py ModelType at v0.6.1). */
  modelType: string;
  /** A qlora_<module>_<size> builder exists. */
  qlora: boolean;
  /**
   * The LoRA builders take no apply_lora_to_output: Gemma's output projection is the tied embedding
   * (models/gemma/_model_builders.py lora_gemma_2b, models/gemma2/_model_builders.py lora_gemma2_9b at v0.6.1).
   */
  tiedOutput?: true;
}

// Builders: the __all__ of torchtune/models/<module>/__init__.py at v0.6.1.
const L2 = {
  module: 'llama2',
  tokenizer: 'torchtune.models.llama2.llama2_tokenizer',
  modelType: 'LLAMA2',
  qlora: true,
};
const L3 = { tokenizer: 'torchtune.models.llama3.llama3_tokenizer', qlora: true };
// gemma2/__init__.py re-exports gemma_tokenizer; configs use torchtune.models.gemma.gemma_tokenizer.
const G2 = {
  module: 'gemma2',
  tokenizer: 'torchtune.models.gemma.gemma_tokenizer',
  modelType: 'GEMMA2',
  qlora: true,
  tiedOutput: true,
} as const;
export const TUNE_MODELS: Record<string, TuneModel> = {
  'llama-2-7b': { ...L2, size: '7b' },
  'llama-2-13b': { ...L2, size: '13b' },
  'llama-2-70b': { ...L2, size: '70b' },
  'codellama-7b': { ...L2, module: 'code_llama2', size: '7b' },
  'codellama-13b': { ...L2, module: 'code_llama2', size: '13b' },
  'llama-3-8b': { ...L3, module: 'llama3', size: '8b', modelType: 'LLAMA3' },
  'llama-3-70b': { ...L3, module: 'llama3', size: '70b', modelType: 'LLAMA3' },
  'llama-3.1-8b': { ...L3, module: 'llama3_1', size: '8b', modelType: 'LLAMA3' },
  'llama-3.1-70b': { ...L3, module: 'llama3_1', size: '70b', modelType: 'LLAMA3' },
  'llama-3.1-405b': { ...L3, module: 'llama3_1', size: '405b', modelType: 'LLAMA3' },
  'llama-3.2-1b': { ...L3, module: 'llama3_2', size: '1b', modelType: 'LLAMA3_2' },
  'llama-3.2-3b': { ...L3, module: 'llama3_2', size: '3b', modelType: 'LLAMA3_2' },
  // llama3_3/__init__.py: llama3_3_70b, lora_llama3_3_70b, qlora_llama3_3_70b (Llama 3 tokenizer and checkpoint format).
  'llama-3.3-70b-instruct': { ...L3, module: 'llama3_3', size: '70b', modelType: 'LLAMA3' },
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
    tiedOutput: true,
  },
  'gemma-7b': {
    module: 'gemma',
    size: '7b',
    tokenizer: 'torchtune.models.gemma.gemma_tokenizer',
    modelType: 'GEMMA',
    qlora: true,
    tiedOutput: true,
  },
  'gemma-2-2b': { ...G2, size: '2b' },
  'gemma-2-9b': { ...G2, size: '9b' },
  'gemma-2-27b': { ...G2, size: '27b' },
  'phi-3-mini-4k-instruct': {
    module: 'phi3',
    size: 'mini',
    tokenizer: 'torchtune.models.phi3.phi3_mini_tokenizer',
    modelType: 'PHI3_MINI',
    qlora: true,
  },
};

/** The model builder torchtune.yaml names for a method: <module>_<size>, lora_…, qlora_…. */
export const builderOf = (m: TuneModel, method: string): string =>
  `torchtune.models.${m.module}.${method === 'qlora' ? 'qlora_' : method === 'lora' ? 'lora_' : ''}${m.module}_${m.size}`;

// Optimizer components (torch and bitsandbytes classes, as in torchtune 0.6.1's shipped configs, e.g.
// recipes/configs/llama3_1/8B_full_single_device.yaml names bitsandbytes.optim.PagedAdamW8bit).
export const TUNE_OPTIM: Partial<Record<Optimizer, Record<string, unknown>>> = {
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
// (torchao/optim/__init__.py and adam.py bf16_stochastic_round at https://github.com/pytorch/ao/tree/v0.10.0).
export const TUNE_OPTIM_SR: Partial<Record<Optimizer, Record<string, unknown>>> = {
  'adamw-8bit': { _component_: 'torchao.optim.AdamW8bit', bf16_stochastic_round: true },
};
// One-GPU optimizer offload: torchao v0.10.0 prototype/low_bit_optim/cpu_offload.py CPUOffloadOptimizer, its default
// optimizer_class torch.optim.AdamW (fused on the host); extra keys go to AdamW. offload_gradients stays False
// (the gradients stay on the GPU: the docstring marks it incompatible with gradient accumulation).
export const TUNE_CPU_OFFLOAD: Record<string, unknown> = {
  _component_: 'torchao.prototype.low_bit_optim.CPUOffloadOptimizer',
  offload_gradients: false,
  weight_decay: 0.0,
};
/** Optimizers written as torchao stochastic-rounding optimizers (the profile's stochasticRounding). */
export const TUNE_SR_OPTIMIZERS: readonly Optimizer[] = ['adamw-8bit'];
// Distributed (FSDP2) recipes: torchao's AdamW8bit, the class torchtune v0.6.1 names for every recipe
// (docs/source/tutorials/memory_optimizations.rst:168-171; bitsandbytes for single-device recipes only). torchao
// v0.10.0 optim/adam.py _new_buffer builds each state from p.to_local() and wraps it with DTensor.from_local on the
// parameter's mesh and placements; optim/subclass_8bit.py OptimState8bit.zeros: uint8 codes and one fp32 scale per
// 256-element block (AdamW8bit block_size=256). prototype/low_bit_optim re-exports torchao.optim in v0.10.0.
// No paged or Lion class there (optim/__init__.py): those stay bitsandbytes and one GPU.
export const TUNE_OPTIM_SHARDED: Partial<Record<Optimizer, Record<string, unknown>>> = {
  'adamw-8bit': { _component_: 'torchao.prototype.low_bit_optim.AdamW8bit' },
};
/** Optimizers the distributed recipes run as torchao DTensor-aware classes (the profile's shardedLowBitOptimizers). */
export const TUNE_SHARDED_OPTIMIZERS = Object.keys(TUNE_OPTIM_SHARDED) as Optimizer[];

/**
 * The optimizer component torchtune.yaml writes for `o` on `dp` data-parallel ranks: torchao's stochastic-rounding
 * class for pure-bf16 full fine-tunes, torchao's DTensor-aware class under FSDP2, else TUNE_OPTIM.
 */
export function tuneOptimizer(
  o: Pick<EstimateOptions, 'method' | 'weights' | 'optimizer'>,
  dp: number,
): Record<string, unknown> | undefined {
  if (roundsStochastically({ stochasticRounding: TUNE_SR_OPTIMIZERS }, o))
    return TUNE_OPTIM_SR[o.optimizer];
  return (dp > 1 ? TUNE_OPTIM_SHARDED[o.optimizer] : undefined) ?? TUNE_OPTIM[o.optimizer];
}

/** Every other `_component_` torchtune.yaml writes, each found in the v0.6.1 tag at the file named. */
export const TUNE_COMPONENTS = {
  checkpointer: 'torchtune.training.FullModelHFCheckpointer', // training/checkpointing/_checkpointer.py:366
  metaCheckpointer: 'torchtune.training.FullModelMetaCheckpointer', // training/checkpointing/_checkpointer.py:929
  dataset: 'torchtune.datasets.alpaca_cleaned_dataset', // datasets/_alpaca.py:98
  lrScheduler: 'torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup', // training/lr_schedulers.py:15
  chunkedLoss: 'torchtune.modules.loss.CEWithChunkedOutputLoss', // modules/loss/ce_chunked_output_loss.py:13
  loss: 'torch.nn.CrossEntropyLoss', // recipes flatten logits/labels for a non-chunked loss (full_finetune_single_device.py:646)
  metricLogger: 'torchtune.training.metric_logging.DiskLogger', // training/metric_logging.py:122
} as const;
