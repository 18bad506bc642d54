/** What the Hugging Face stack's engines share: 16-bit weight kinds and the Trainer's optimizers. */
import type { Optimizer, WeightDtype } from '../../../schema/estimate.js';

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
