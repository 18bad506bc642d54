/**
 * Which concrete engine runs a configuration: the launcher `launch` writes and whose allocations the memory
 * and time models follow. This first mapping follows what `launch` emitted before engines were explicit
 * (plain transformers without sharding; DeepSpeed for ZeRO stages; the framework's own launcher otherwise).
 */
import type { Engine } from '../schema/engine.js';
import type { EstimateOptions } from '../schema/estimate.js';

export function engineOf(o: EstimateOptions): Engine {
  switch (o.framework) {
    case 'hf':
    case 'deepspeed':
      if (o.method === 'inference') return 'hf-generate';
      return o.zero > 0 || o.framework === 'deepspeed' ? 'hf-deepspeed' : 'hf-trainer';
    case 'torchtune':
    case 'torchtitan':
    case 'litgpt':
    case 'unsloth':
    case 'vllm':
      return o.framework;
  }
}
