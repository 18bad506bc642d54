/** What the Hugging Face stack's engines share: 16-bit weight kinds and the Trainer's optimizers. */
import type { Objective, Optimizer, WeightDtype } from '../../../schema/estimate.js';
import { LINEAR_TARGETS, type AppleWeights, type LoraRecipe } from '../profile.js';

/** The torch the Hugging Face engines' launch folders pin (trainer.ts HF_PINS). */
export const HF_TORCH = '2.12.1';

export const FLOAT16: readonly WeightDtype[] = ['bf16', 'fp16'];

const BNB_0501 =
  'https://github.com/bitsandbytes-foundation/bitsandbytes/blob/37d2a9387f7146ccb85517ff45c665d345bfda79/bitsandbytes';

/**
 * bitsandbytes weights on Apple GPUs through transformers (trainer.ts HF_PINS: transformers 5.14.1, bitsandbytes
 * 0.50.2; axolotl 0.19.0 pins transformers 5.16.1 and the same bitsandbytes). Both quantizers validate with
 * validate_bnb_backend_availability, which passes where an available device is in bnb.supported_torch_devices; that
 * set lists "mps". bitsandbytes 0.50.1 registers the 4-bit ops for "mps" (backends/mps/ops.py: a Metal kernel from
 * the kernels hub on macOS 26+, else pure-torch fallbacks) and the int8 ops as pure-torch "default" kernels for every
 * device (backends/default/ops.py). The 0.50.2 wheel's ops files are the same. LLM.int8 training on MPS takes
 * MatMul8bitLt (autograd/_functions.py matmul sends CPU and XPU only to MatMul8bitFp).
 */
export const HF_APPLE_WEIGHTS: AppleWeights = {
  runs: {
    weights: ['nf4', 'fp4', 'int8'],
    source: `transformers 5.14.1 integrations/bitsandbytes.py validate_bnb_backend_availability passes on MPS (bitsandbytes 0.50.2 __init__.py supported_torch_devices has "mps"); bitsandbytes registers quantize_4bit, dequantize_4bit and gemm_4bit for "mps" (${BNB_0501}/backends/mps/ops.py) and int8_vectorwise_quant, int8_linear_matmul (an fp32 matmul) and int8_mm_dequant for every device (${BNB_0501}/backends/default/ops.py), unchanged in 0.50.2`,
  },
};
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
