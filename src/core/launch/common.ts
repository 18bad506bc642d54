/** Facts every emitter derives the same way from a LaunchInput: parallel layout, dtypes, learning rate. */
import type { EstimateOptions } from '../../schema/estimate.js';
import { engineOf } from '../engines/engine.js';
import { ENGINE_PROFILES } from '../engines/store.js';
import { shardingKind } from '../engines/profile.js';
import { isFourBitFloat } from '../model/dtypes.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Scenario } from '../../schema/scenario.js';
import type { LaunchInput, Sharding } from './types.js';
import { OBJECTIVE_PROFILES } from '../../schema/objectives.js';
import { floatCompute, type FloatDtype } from '../../schema/estimate.js';

/** Data-parallel degree (docs/DESIGN.md: dp = gpus / (tp * pp)). */
export const dataParallel = (o: EstimateOptions): number => o.gpus / (o.tp * o.pp);

/** Samples per optimizer step across all ranks (DeepSpeed train_batch_size = micro * accum * dp). */
export const globalBatch = (x: LaunchInput): number =>
  x.options.batch * x.gradAccum * dataParallel(x.options);

/** ZeRO sharding as the plan's engine realises it: DeepSpeed for hf-deepspeed, FSDP otherwise (core/engines/engine.ts). */
export const shardingOf = (x: Pick<LaunchInput, 'options'>): Sharding =>
  shardingKind(ENGINE_PROFILES[engineOf(x.options)]);

/** Machines the plan spans and GPUs on each (LaunchInput.gpusPerNode, else one machine). */
export function nodesOf(x: Pick<LaunchInput, 'options' | 'gpusPerNode'>): {
  nodes: number;
  perNode: number;
} {
  const perNode = Math.min(x.options.gpus, x.gpusPerNode ?? x.options.gpus);
  return { nodes: Math.ceil(x.options.gpus / perNode), perNode };
}

/** Rendezvous port of multi-node launches (torchrun's default, 29500). */
export const MASTER_PORT = 29500;

export const isTraining = (o: EstimateOptions): boolean => o.method !== 'inference';
export const isAdapter = (o: EstimateOptions): boolean =>
  o.method === 'lora' || o.method === 'qlora';
export const is4bit = (o: EstimateOptions): boolean => isFourBitFloat(o.weights);

/**
 * Starting learning rates: full FT 2e-5 (Llama-2 paper §3.1 SFT), LoRA/QLoRA 2e-4 (QLoRA paper App. B.2). GRPO
 * plans take their engine's own recipe instead (engines/hf/trl-objective.ts trlLearningRate, the Unsloth
 * launcher's GRPO notebooks rate): an SFT rate would swamp the policy-gradient updates. Preference plans take
 * preferenceLearningRate.
 */
export const learningRate = (o: EstimateOptions): number => (isAdapter(o) ? 2e-4 : 2e-5);

/**
 * A preference objective's starting learning rate, or null for SFT, GRPO and ORPO (ORPO takes its engine's own ORPO
 * recipe: engines/hf/trl-objective.ts TRL_ORPO_LR, the axolotl and Unsloth launchers). Full: 1e-6, the default of TRL
 * v1.9.0's DPOConfig, KTOConfig, ORPOConfig and CPOConfig ("Defaults to 1e-6 instead of 5e-5", dpo_config.py,
 * kto_config.py, experimental/orpo/orpo_config.py, experimental/cpo/cpo_config.py). Adapters: 5e-6, the LoRA
 * example of TRL v1.9.0 trl/scripts/dpo.py, the QLoRA DPO recipe of huggingface/alignment-handbook
 * (recipes/zephyr-7b-beta/dpo/config_qlora.yaml) and Unsloth's DPO notebook (unslothai/notebooks@bdda2efc
 * nb/Zephyr_(7B)-DPO.ipynb); TRL v1.9.0 docs/source/kto_trainer.md keeps KTO between 5e-7 and 5e-6.
 */
export const preferenceLearningRate = (o: EstimateOptions): number | null =>
  isPreference(o) && o.objective !== 'orpo' ? (isAdapter(o) ? 5e-6 : 1e-6) : null;

/** A preference objective (DPO, KTO, ORPO, SimPO): neither supervised nor generating while it trains. */
const isPreference = (o: EstimateOptions): boolean =>
  o.objective !== undefined && o.objective !== 'sft' && !OBJECTIVE_PROFILES[o.objective].rollout;

/** The launch README's note on a preference objective's learning rate (preferenceLearningRate). */
export const preferenceLrNote = (o: EstimateOptions): string | null => {
  const lr = preferenceLearningRate(o);
  if (lr === null) return null;
  const which = isAdapter(o)
    ? "the LoRA example of TRL's trl/scripts/dpo.py (v1.9.0) and Unsloth's DPO notebook"
    : "TRL's preference configs' own default (dpo_config.py, kto_config.py at v1.9.0)";
  return `learning_rate ${lr.toExponential(0)}: ${which}, not the SFT rate (TRL's kto_trainer.md keeps 5e-7 to 5e-6)`;
};

/** LoRA alpha = 2r, the common convention (Raschka, "Practical Tips for Finetuning LLMs Using LoRA"). */
export const loraAlpha = (r: number): number => 2 * r;
/** LoRA dropout 0.05, the QLoRA paper's value for 7B-13B models (Dettmers et al. 2023, App. B.2). */
export const LORA_DROPOUT = 0.05;
/**
 * The lora_dropout a launcher writes: the estimate's --lora-dropout, else what the memory profile counted without
 * it (LORA_DROPOUT where the profile counts dropout, 0 where not), so the written config runs what was estimated.
 */
export const writtenLoraDropout = (o: EstimateOptions): number =>
  o.loraDropout ?? (FRAMEWORKS[o.framework].loraDropout ? LORA_DROPOUT : 0);

/** Gradient-norm clipping at 1.0: the HF TrainingArguments max_grad_norm default. */
export const MAX_GRAD_NORM = 1.0;

/** torch dtype names for from_pretrained(torch_dtype=...). */
export const TORCH_DTYPE: Record<FloatDtype, string> = {
  fp32: 'float32',
  fp16: 'float16',
  bf16: 'bfloat16',
};

/** Weights held as float: the dtype the model is loaded in (fp32 when an fp32 master copy is trained). */
export function loadDtype(o: EstimateOptions): string {
  if (o.weights === 'fp32' || o.masterWeights) return 'float32';
  if (o.weights === 'fp16') return 'float16';
  if (o.weights === 'bf16') return 'bfloat16';
  return TORCH_DTYPE[floatCompute(o.compute)];
}

/** Text of one plan on one line, for headers and README titles. */
export function planSummary(x: LaunchInput): string {
  const o = x.options;
  const parts = [
    `${x.arch.id}`,
    o.method,
    `weights ${o.weights}${o.doubleQuant ? '+dq' : ''}`,
    `compute ${o.compute}`,
    `optimizer ${o.optimizer}`,
    `batch ${o.batch} x seq ${o.seq} x accum ${x.gradAccum}`,
    `${o.gpus} x ${x.gpu.name}`,
  ];
  if (o.zero > 0)
    parts.push(
      `ZeRO-${o.zero}${o.offload !== 'none' ? ` offload ${o.offload}` : ''} (${shardingOf(x)})`,
    );
  if (o.tp > 1 || o.pp > 1) parts.push(`tp ${o.tp} pp ${o.pp}`);
  return parts.join(' · ');
}

/** Reasons no HF-stack engine (Trainer, Accelerate, DeepSpeed, axolotl) can run the plan as given; null when none. */
export function hfStackBlocker(o: EstimateOptions): string | null {
  if (o.method === 'inference')
    return 'the plan is inference: training engines do not apply (serve it with vLLM or transformers)';
  if (o.tp > 1 || o.pp > 1)
    return `tensor/pipeline parallelism (tp ${o.tp}, pp ${o.pp}) needs Megatron-LM, torchtitan or nanotron; these configs cannot express it`;
  if (o.optimizerInBackward)
    return 'optimizer-in-backward has no Trainer/Accelerate/DeepSpeed switch (torchtune has optimizer_in_bwd)';
  if (o.weights === 'int4')
    return 'int4 (GPTQ/AWQ-style) base weights: bitsandbytes has no int4 type; load a GPTQ/AWQ checkpoint with its own quantizer instead';
  if (o.weights === 'fp8')
    return 'fp8 base weights for adapter training have no BitsAndBytesConfig equivalent';
  if (o.sparsity > 0) return 'sparse weights (csr, 2:4) have no switch in these engines';
  return null;
}

/** Training tokens a scenario's job plans (dataset tokens x epochs, as the planner times it); none for serving. */
export const plannedTokens = (job: Scenario['job']): number | undefined =>
  job.kind === 'fine-tune' ? job.datasetTokens * job.epochs : undefined;
