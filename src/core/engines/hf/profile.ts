/** What the Hugging Face stack's engines share: 16-bit weight kinds and the Trainer's optimizers. */
import type { Objective, Optimizer, WeightDtype } from '../../../schema/estimate.js';

export const FLOAT16: readonly WeightDtype[] = ['bf16', 'fp16'];
export const HF_OPTIMIZERS: readonly Optimizer[] = [
  // TrainingArguments.optim: adamw_torch(_fused), adamw_bnb_8bit, paged_adamw_32bit, paged_adamw_8bit,
  // lion_32bit, adafactor, sgd (https://huggingface.co/docs/transformers/main/en/optimizers).
  'adamw',
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
  'lion',
  'adafactor',
  'sgd',
  'sgd-momentum',
];

/**
 * The objectives TRL v1.9.0 trains: SFTTrainer, DPOTrainer, KTOTrainer, GRPOTrainer (trl/trainer/), ORPOTrainer
 * and CPOTrainer (SimPO is CPOConfig loss_type="simpo") in trl/experimental/{orpo,cpo}/.
 */
export const TRL_OBJECTIVES: readonly Objective[] = ['sft', 'dpo', 'orpo', 'kto', 'simpo', 'grpo'];
