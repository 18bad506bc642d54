/** The LitGPT engine: its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { LITGPT_ARCHITECTURES } from './architectures.js';
import { LITGPT_READER } from './from.js';
import { LITGPT_MEMORY } from './memory.js';
import { LITGPT_PROFILE } from './profile.js';
import { LITGPT_RUNS } from './runs.js';
import { LITGPT_LOG } from './logs.js';
import { LITGPT_LAUNCH_FOLDER } from './launch-folder.js';

export const LITGPT: EngineDef = {
  id: 'litgpt',
  profile: LITGPT_PROFILE,
  runs: LITGPT_RUNS,
  memory: LITGPT_MEMORY,
  readers: [LITGPT_READER],
  architectures: LITGPT_ARCHITECTURES,
  logs: LITGPT_LOG,
  launchFolder: LITGPT_LAUNCH_FOLDER,
  launcher: {
    load: async () => {
      const { emitLitgpt, litgptBlocker } = await import('./launch.js');
      return { emit: (x) => [emitLitgpt(x)], blocker: litgptBlocker };
    },
  },
};
