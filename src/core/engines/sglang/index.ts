/** The SGLang engine: its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { SGLANG_ARCHITECTURES } from './architectures.js';
import { SGLANG_KERNELS } from './kernels.js';
import { SGLANG_CONFIG, SGLANG_SERVE } from './from.js';
import { SGLANG_MEMORY } from './memory.js';
import { SGLANG_PROFILE } from './profile.js';
import { SGLANG_RUNS } from './runs.js';
import { SGLANG_METRICS } from './metrics.js';
import { SERVE_LAUNCH_FOLDER } from '../serve-folder.js';

export const SGLANG: EngineDef = {
  id: 'sglang',
  profile: SGLANG_PROFILE,
  runs: SGLANG_RUNS,
  memory: SGLANG_MEMORY,
  readers: [SGLANG_CONFIG],
  serve: SGLANG_SERVE,
  kernels: SGLANG_KERNELS,
  architectures: SGLANG_ARCHITECTURES,
  metrics: SGLANG_METRICS,
  launchFolder: SERVE_LAUNCH_FOLDER,
  launcher: {
    load: async () => {
      const { emitSglang, sglangBlocker } = await import('./launch.js');
      return { emit: (x) => [emitSglang(x)], blocker: sglangBlocker };
    },
  },
};
