/** The torchtitan engine: its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { TORCHTITAN_ARCHITECTURES } from './architectures.js';
import { TORCHTITAN_READER } from './from.js';
import { TORCHTITAN_MEMORY } from './memory.js';
import { TORCHTITAN_PROFILE } from './profile.js';
import { TORCHTITAN_RUNS } from './runs.js';
import { TORCHTITAN_LOG } from './logs.js';
import { TORCHTITAN_LAUNCH_FOLDER } from './launch-folder.js';

export const TORCHTITAN: EngineDef = {
  id: 'torchtitan',
  abbr: 'titan',
  profile: TORCHTITAN_PROFILE,
  runs: TORCHTITAN_RUNS,
  memory: TORCHTITAN_MEMORY,
  readers: [TORCHTITAN_READER],
  architectures: TORCHTITAN_ARCHITECTURES,
  logs: TORCHTITAN_LOG,
  launchFolder: TORCHTITAN_LAUNCH_FOLDER,
  launcher: {
    load: async () => {
      const { emitTorchtitan, torchtitanBlocker } = await import('./launch.js');
      return { emit: (x) => [emitTorchtitan(x)], blocker: torchtitanBlocker };
    },
  },
};
