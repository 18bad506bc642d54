/**
 * The engines a plan runs on: the software that `launch` writes a config for, and whose allocations the
 * memory and time models follow. `framework` (the estimate contract) names the stack's overhead profile;
 * `engine` names the concrete launcher and sharding implementation of a ranked plan.
 */
export const ENGINES = [
  /** transformers Trainer / TRL / PEFT, one process or DDP through Accelerate; no sharding. */
  'hf-trainer',
  /** transformers Trainer + Accelerate with PyTorch FSDP (ZeRO-2/3 equivalents). */
  'hf-fsdp',
  /** transformers Trainer + DeepSpeed ZeRO 1-3 (optional CPU offload). */
  'hf-deepspeed',
  /** torchtune recipes (single device, distributed FSDP2). */
  'torchtune',
  /** torchtitan (FSDP2 + TP/PP/CP). */
  'torchtitan',
  /** LitGPT. */
  'litgpt',
  /** Unsloth (single GPU). */
  'unsloth',
  /** vLLM serving. */
  'vllm',
  /** transformers generate() (inference without a serving engine). */
  'hf-generate',
] as const;
export type Engine = (typeof ENGINES)[number];
