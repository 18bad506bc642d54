/**
 * What the hf-deepspeed engine runs, as vramplan writes it (runs.ts): Trainer with a DeepSpeed config
 * (integrations/deepspeed.py), and beyond it LoRA over a GPTQ or AWQ int4 checkpoint below ZeRO-3, as the Trainer
 * alone does (hf-trainer/runs.ts): the quantizer is trainable once adapters are attached (trainer_utils.py
 * validate_quantization_for_training; GptqHfQuantizer.is_trainable True), ZeRO-1/2 leave the frozen packed weights
 * whole on each rank, and the profile's shardedQuantized (nf4, fp4) keeps int4 out of ZeRO-3. QwenLM/Qwen's
 * finetune/finetune_qlora_single_gpu.sh (QwenLM/Qwen@e6f2a7a) trains Qwen-7B-Chat-Int4 (GPTQ) under DeepSpeed ZeRO-2.
 * It also trains in FP8 (torchao float8, as on the other Accelerate engines): Accelerator.prepare converts the
 * linears (_prepare_ao) before _prepare_deepspeed, and DeepSpeedPlugin keeps DeepSpeed's bf16 engine for fp8
 * ("bf16.enabled": mixed_precision in ("bf16", "fp8")) (accelerate@09228237 accelerator.py, utils/dataclasses.py;
 * benchmarks/fp8/torchao/distrib_deepspeed.py trains it at ZeRO 1-3).
 * Under ZeRO-Offload it steps Lion on the host as it does AdamW (a ds-config optimizer of type "lion" builds
 * DeepSpeedCPULion when the optimizer is offloaded), and a client optimizer (SGD, Adafactor, bitsandbytes' 8-bit
 * AdamW) on the host's fp32 partitions once the config sets zero_force_ds_cpu_optimizer false (deepspeed 0.19.8 runtime/engine.py
 * _configure_basic_optimizer, _configure_optimizer; the Trainer hands its own optimizer over under offload,
 * integrations/deepspeed.py deepspeed_optim_sched); bitsandbytes' 8-bit AdamW steps there through its CPU kernel.
 * Paged optimizers keep their states in CUDA managed memory and stay refused.
 */
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import {
  HF_TRAINING_RUNS,
  HF_FLOAT8_CHECK,
  TE_MXFP8,
  hfZeroRefusal,
  bnb4bitLoadNote,
} from '../hf/runs.js';
import { HF_DEEPSPEED_PROFILE } from './profile.js';

const DEEPSPEED_ENGINE =
  'deepspeed 0.19.8 runtime/engine.py (https://pypi.org/project/deepspeed/0.19.8/ sdist)';
const HF_DS =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/integrations/deepspeed.py';
/**
 * Client optimizers DeepSpeed steps on the host only with zero_force_ds_cpu_optimizer false: torch's SGD and
 * Adafactor, and bitsandbytes' 8-bit AdamW through its CPU kernel (bitsandbytes 0.50.2, the Trainer's pin,
 * backends/cpu/ops.py registers optimizer_update_8bit_blockwise for "cpu": dequantize, torch update, requantize).
 */
const CLIENT_HOST_OPTIMIZERS = ['sgd', 'sgd-momentum', 'adafactor', 'adamw-8bit'] as const;
/** What ZeRO-Offload steps on the host: DeepSpeed's CPU Adam and Lion, and the client optimizers. */
const HOST_OPTIMIZERS: readonly Optimizer[] = ['adamw', 'lion', ...CLIENT_HOST_OPTIMIZERS];
const PAGED: readonly Optimizer[] = ['paged-adamw', 'paged-adamw-8bit'];
const BNB_FUNCTIONAL =
  'bitsandbytes 0.50.2 functional.py get_paged (https://pypi.org/project/bitsandbytes/0.50.2/)';

/** A paged bitsandbytes optimizer under ZeRO-Offload: its states are CUDA managed memory, not a host step. */
const hostStepRefusal = (o: EstimateOptions, set: RunsSet | 'other'): string | null =>
  set === 'parallel' && o.offload !== 'none' && PAGED.includes(o.optimizer)
    ? `--optimizer: got '${o.optimizer}'; expected one of ${HOST_OPTIMIZERS.join(', ')} with --offload ${o.offload}: ZeRO-Offload steps the optimizer on the host's fp32 partitions (DeepSpeedCPUAdam, DeepSpeedCPULion, or a client optimizer with zero_force_ds_cpu_optimizer false: ${DEEPSPEED_ENGINE} _configure_optimizer), while a paged optimizer keeps its states in CUDA managed memory that pages to the GPU for the step (${BNB_FUNCTIONAL}): not modelled`
    : null;

const ACCELERATE =
  'https://github.com/huggingface/accelerate/blob/09228237b95789ea2ad87e669e7b885855b97f97/src/accelerate';

const DS_SDIST = 'https://pypi.org/project/deepspeed/0.19.8/ (sdist) deepspeed';

/**
 * `--tp N` on hf-deepspeed: DeepSpeed AutoTP, which the Trainer starts from the DeepSpeed config's
 * tensor_parallel.autotp_size (transformers 5.14.1 integrations/deepspeed.py deepspeed_init: deepspeed.tp_model_init;
 * accelerate 1.15.0 accelerator.py _prepare_deepspeed builds the "tp" mesh). auto_tp.py splits the attention and MLP
 * linears column- or row-parallel by name and, in training, lm_head column-parallel with its logits gathered
 * (gather_output=True); nn.Embedding is not split; ZeRO partitions over the data-parallel ranks, stage 3 included
 * (runtime/engine.py "AutoTP + ZeRO stage 3 is supported for both inference and training").
 */
const autotpNote = (o: EstimateOptions): string | null =>
  o.tp > 1
    ? `--tp ${o.tp} on hf-deepspeed is DeepSpeed AutoTP (tensor_parallel.autotp_size ${o.tp} in the DeepSpeed config: ${HF_DS} deepspeed_init, deepspeed.tp_model_init): the attention and MLP linears split column- or row-parallel by name and lm_head column-parallel with its logits gathered (${DS_SDIST}/module_inject/auto_tp.py:405-470), ZeRO-${o.zero} over the data-parallel ranks (${DS_SDIST}/runtime/engine.py:952); estimated as the Trainer's TP plans (linears sharded, norms and loss whole), the embedding, which AutoTP leaves whole on each rank, counted split; vramplan writes no AutoTP launch`
    : null;

const ACCELERATE_WHEEL = 'https://pypi.org/project/accelerate/1.15.0/ (wheel) accelerate';

const ULYSSES = `${DS_SDIST}/runtime/sequence_parallel/ulysses_sp.py`;

/**
 * `--cp N` on hf-deepspeed: the Trainer's sequence parallelism under DeepSpeed is Ulysses (ALST, arXiv:2506.13996):
 * ParallelismConfig sp_size with sp_backend "deepspeed", the only SP backend (accelerate 1.15.0
 * parallelism_config.py:56-59, :324-326); Accelerator.prepare registers UlyssesSPAttentionHF over the model's attention
 * and wraps the dataloader in UlyssesSPDataLoaderAdapter (accelerator.py:2395-2450). Each rank keeps seq / N of every
 * activation and of the logits; all-to-alls around attention split heads instead (time/train-sequence-parallel.ts);
 * ZeRO partitions over the sequence-data-parallel group, every rank (runtime/engine.py:2164, :2626). The head and
 * attention checks DeepSpeed raises are rules (hf/rules.ts DEEPSPEED_ULYSSES_*).
 */
const ulyssesNote = (o: EstimateOptions): string | null =>
  o.cp > 1
    ? `--cp ${o.cp} on hf-deepspeed is DeepSpeed Ulysses sequence parallelism (TrainingArguments.parallelism_config = ParallelismConfig(sp_backend="deepspeed", sp_size=${o.cp}), ${ACCELERATE_WHEEL}/parallelism_config.py:56-59): each rank holds seq/${o.cp} of every activation, and four all-to-alls per attention layer and pass (q, k, v in, the output back) split heads instead (${ULYSSES}:168-229), timed on the compute stream; vramplan writes no Ulysses launch`
    : null;

export const HF_DEEPSPEED_RUNS: EngineRuns = {
  ...HF_TRAINING_RUNS,
  widen: {
    ...HF_TRAINING_RUNS.widen,
    baseWeights: [...HF_DEEPSPEED_PROFILE.baseWeights, 'int4'],
    float8: ['fp8', 'mxfp8'],
    offloadOptimizers: HOST_OPTIMIZERS,
    tp: true,
    cp: true,
  },
  sources: {
    ...HF_TRAINING_RUNS.sources,
    float8: `${ACCELERATE}/accelerator.py`,
    weights:
      'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/quantizers/quantizer_gptq.py',
  },
  float8Runs: { mxfp8: TE_MXFP8 },
  float8Check: HF_FLOAT8_CHECK,
  refusal: (o, set) => hfZeroRefusal('hf-deepspeed')(o, set) ?? hostStepRefusal(o, set),
  parallelNote: (o, dp) => {
    const load = bnb4bitLoadNote('hf-deepspeed')(o, dp);
    const client =
      o.offload !== 'none' && (CLIENT_HOST_OPTIMIZERS as readonly string[]).includes(o.optimizer)
        ? `hf-deepspeed steps ${o.optimizer} under ZeRO-Offload as the Trainer's client optimizer on the host (${o.optimizer === 'adamw-8bit' ? "bitsandbytes' CPU kernel, backends/cpu/ops.py" : 'torch'}; timed as a torch host step, not DeepSpeedCPUAdam's vectorized one), once the DeepSpeed config sets "zero_force_ds_cpu_optimizer": false (DeepSpeed raises otherwise: ${DEEPSPEED_ENGINE} _configure_optimizer; ${HF_DS} deepspeed_optim_sched); launch writes the AdamW offload only`
        : null;
    return (
      [load, client, autotpNote(o), ulyssesNote(o)].filter((n) => n !== null).join('; ') || null
    );
  },
};
