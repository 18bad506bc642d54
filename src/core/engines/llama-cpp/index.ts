/** The llama.cpp engine (llama-server): its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { LLAMA_CPP_ARCHITECTURES } from './architectures.js';
import { LLAMA_CPP_SERVE } from './from.js';
import { LLAMA_CPP_MEMORY } from './memory.js';
import { LLAMA_CPP_PROFILE } from './profile.js';
import { LLAMA_CPP_RUNS } from './runs.js';
import { LLAMA_CPP_METRICS } from './metrics.js';
import { SERVE_LAUNCH_FOLDER } from '../serve-folder.js';
import { LLAMA_CPP_KERNELS } from './kernels.js';

export const LLAMA_CPP: EngineDef = {
  id: 'llama.cpp',
  abbr: 'lcpp',
  profile: LLAMA_CPP_PROFILE,
  runs: LLAMA_CPP_RUNS,
  memory: LLAMA_CPP_MEMORY,
  serve: LLAMA_CPP_SERVE,
  kernels: LLAMA_CPP_KERNELS,
  architectures: LLAMA_CPP_ARCHITECTURES,
  metrics: LLAMA_CPP_METRICS,
  launchFolder: SERVE_LAUNCH_FOLDER,
  launcher: {
    load: async () => {
      const { emitLlamaCpp, llamaCppBlocker } = await import('./launch.js');
      return { emit: (x) => [emitLlamaCpp(x)], blocker: llamaCppBlocker };
    },
  },
};
