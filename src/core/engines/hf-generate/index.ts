/** The hf-generate engine (transformers generate()): its script is written beside vLLM's (engines/vllm/launch.ts). */
import type { EngineDef } from '../def.js';
import { HF_GENERATE_ARCHITECTURES } from '../hf/architectures.js';
import { HF_MEMORY } from '../hf/memory.js';
import { HF_GENERATE_KERNELS } from './kernels.js';
import { HF_GENERATE_PROFILE } from './profile.js';
import { HF_GENERATE_RUNS } from './runs.js';

export const HF_GENERATE: EngineDef = {
  id: 'hf-generate',
  abbr: 'hfgen',
  profile: HF_GENERATE_PROFILE,
  runs: HF_GENERATE_RUNS,
  claims: (o) => o.method === 'inference',
  // Inference with a DeepSpeed config runs transformers generate() too.
  claimsFor: ['deepspeed'],
  memory: HF_MEMORY,
  kernels: HF_GENERATE_KERNELS,
  architectures: HF_GENERATE_ARCHITECTURES,
  launcher: {
    load: async () => {
      const { emitGenerate, generateBlocker } = await import('../vllm/launch.js');
      return { emit: (x) => [emitGenerate(x)], blocker: (x) => generateBlocker(x.options) };
    },
  },
};
