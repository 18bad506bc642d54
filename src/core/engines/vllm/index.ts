/** The vLLM engine: its profile, runs, memory profile and launcher (serve.sh + check.sh). */
import type { EngineDef } from '../def.js';
import { VLLM_ARCHITECTURES } from './architectures.js';
import { VLLM_KERNELS } from './kernels.js';
import { VLLM_CONFIG, VLLM_SERVE } from './from.js';
import { VLLM_MEMORY } from './memory.js';
import { VLLM_PROFILE } from './profile.js';
import { VLLM_RUNS } from './runs.js';
import { VLLM_METRICS } from './metrics.js';
import { SERVE_LAUNCH_FOLDER } from '../serve-folder.js';

export const VLLM: EngineDef = {
  id: 'vllm',
  profile: VLLM_PROFILE,
  runs: VLLM_RUNS,
  memory: VLLM_MEMORY,
  readers: [VLLM_CONFIG],
  serve: VLLM_SERVE,
  kernels: VLLM_KERNELS,
  architectures: VLLM_ARCHITECTURES,
  metrics: VLLM_METRICS,
  launchFolder: SERVE_LAUNCH_FOLDER,
  launcher: {
    load: async () => {
      const { emitVllm, vllmBlocker } = await import('./launch.js');
      return { emit: (x) => [emitVllm(x)], blocker: vllmBlocker };
    },
  },
};
