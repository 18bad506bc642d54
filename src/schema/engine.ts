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
  /** SGLang serving (radix-cache paged KV pool). */
  'sglang',
  /** llama.cpp llama-server (GGUF, partial GPU offload). */
  'llama.cpp',
] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * The memory profile (`options.framework`) each engine's plans are estimated with; `--framework` takes an
 * engine name for it (core/engines/<engine>/profile.ts holds the same, checked by a test).
 */
export const ENGINE_FRAMEWORK = {
  'hf-trainer': 'hf',
  'hf-fsdp': 'hf',
  'hf-deepspeed': 'deepspeed',
  torchtune: 'torchtune',
  torchtitan: 'torchtitan',
  litgpt: 'litgpt',
  unsloth: 'unsloth',
  vllm: 'vllm',
  'hf-generate': 'hf',
  sglang: 'sglang',
  'llama.cpp': 'llama.cpp',
} as const satisfies Record<Engine, string>;

export const isEngine = (s: unknown): s is Engine =>
  typeof s === 'string' && (ENGINES as readonly string[]).includes(s);
