/** What the Hugging Face stack's engines share: 16-bit weight kinds and the Trainer's optimizers. */
import type { Objective, Optimizer, WeightDtype } from '../../../schema/estimate.js';
import { LINEAR_TARGETS, type LoraRecipe } from '../profile.js';

/** The torch the Hugging Face engines' launch folders pin (trainer.ts HF_PINS). */
export const HF_TORCH = '2.12.1';

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

/**
 * The Hugging Face stack's LoRA recipes train every linear layer: TRL's "LoRA Without Regret" guide writes
 * --lora_target_modules all-linear (huggingface/trl v1.9.0 docs/source/lora_without_regret.md), axolotl's
 * examples lora_target_linear: true (axolotl-ai-cloud/axolotl 067b021c examples/llama-3/lora-8b.yml, qlora.yml),
 * LLaMA-Factory's every example lora_target: all (hiyouga/LLaMA-Factory ff6d4d12 examples/train_lora/
 * llama3_lora_sft.yaml); QLoRA adapts every linear layer (arXiv:2305.14314 §4). PEFT's own fallback for a
 * llama model_type without target_modules is q_proj,v_proj; the recipes set it.
 */
export const HF_LORA: LoraRecipe = {
  allLinear: true,
  targets: LINEAR_TARGETS,
  source:
    'TRL lora_without_regret.md, axolotl examples/llama-3/lora-8b.yml, LLaMA-Factory examples',
};
