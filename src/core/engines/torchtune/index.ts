/** The torchtune engine: its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { TORCHTUNE_ARCHITECTURES } from './architectures.js';
import { TORCHTUNE_READER } from './from.js';
import { TORCHTUNE_MEMORY } from './memory.js';
import { TORCHTUNE_PROFILE } from './profile.js';
import { TORCHTUNE_RUNS } from './runs.js';
import { TORCHTUNE_LOG } from './logs.js';
import { TORCHTUNE_LAUNCH_FOLDER } from './launch-folder.js';

export const TORCHTUNE: EngineDef = {
  id: 'torchtune',
  abbr: 'ttune',
  profile: TORCHTUNE_PROFILE,
  runs: TORCHTUNE_RUNS,
  memory: TORCHTUNE_MEMORY,
  readers: [TORCHTUNE_READER],
  architectures: TORCHTUNE_ARCHITECTURES,
  logs: TORCHTUNE_LOG,
  launchFolder: TORCHTUNE_LAUNCH_FOLDER,
  launcher: {
    objectives: ['dpo'],
    load: async () => {
      const { emitTorchtune, torchtuneBlocker } = await import('./launch.js');
      return { emit: (x) => [emitTorchtune(x)], blocker: torchtuneBlocker };
    },
  },
};
