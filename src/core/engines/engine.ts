/**
 * Which concrete engine runs a configuration: the launcher `launch` writes and whose allocations the memory
 * and time models follow. It is read back from the estimate options, which encode it: the planner builds a
 * plan's options with `onEngine` (engines.ts), so `engineOf(plan.options) === plan.choices.engine`.
 *
 * - framework 'deepspeed' → hf-deepspeed (Trainer + DeepSpeed ZeRO; fp32 master partition, DeepSpeed layout);
 * - framework 'hf': inference → hf-generate; ZeRO 2/3 → hf-fsdp (Accelerate FSDP: SHARD_GRAD_OP /
 *   FULL_SHARD; fp32 weights = FSDP mixed precision); ZeRO 0 → hf-trainer (one process or DDP);
 * - every other framework is its own engine.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';

export function engineOf(o: EstimateOptions): Engine {
  switch (o.framework) {
    case 'deepspeed':
      return o.method === 'inference' ? 'hf-generate' : 'hf-deepspeed';
    case 'hf':
      if (o.method === 'inference') return 'hf-generate';
      return o.zero > 0 ? 'hf-fsdp' : 'hf-trainer';
    case 'torchtune':
    case 'torchtitan':
    case 'litgpt':
    case 'unsloth':
    case 'vllm':
    case 'sglang':
    case 'llama.cpp':
      return o.framework;
  }
}
