/** The Unsloth engine: its profile, runs, memory profile and launcher. */
import type { EngineDef } from '../def.js';
import { UNSLOTH_ARCHITECTURES } from './architectures.js';
import { UNSLOTH_READER } from './from.js';
import { UNSLOTH_MEMORY } from './memory.js';
import { UNSLOTH_PROFILE } from './profile.js';
import { UNSLOTH_RUNS } from './runs.js';
import { UNSLOTH_LAUNCH_OBJECTIVES } from './objective.js';
import { UNSLOTH_LAUNCH_FOLDER } from './launch-folder.js';

export const UNSLOTH: EngineDef = {
  id: 'unsloth',
  profile: UNSLOTH_PROFILE,
  runs: UNSLOTH_RUNS,
  memory: UNSLOTH_MEMORY,
  readers: [UNSLOTH_READER],
  architectures: UNSLOTH_ARCHITECTURES,
  launchFolder: UNSLOTH_LAUNCH_FOLDER,
  launcher: {
    objectives: UNSLOTH_LAUNCH_OBJECTIVES,
    load: async () => {
      const { emitUnsloth, unslothBlocker } = await import('./launch.js');
      return { emit: (x) => [emitUnsloth(x)], blocker: unslothBlocker };
    },
  },
};
