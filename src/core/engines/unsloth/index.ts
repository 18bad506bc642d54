/** The Unsloth engine: its profile and launcher (FastLanguageModel + TRL SFT, DPO and GRPO scripts). */
import type { EngineDef } from '../def.js';
import { emitUnsloth, unslothBlocker } from './launch.js';
import { UNSLOTH_LAUNCH_OBJECTIVES } from './objective.js';
import { UNSLOTH_PROFILE } from './profile.js';

export const UNSLOTH: EngineDef = {
  profile: UNSLOTH_PROFILE,
  launcher: {
    emit: (x) => [emitUnsloth(x)],
    blocker: unslothBlocker,
    objectives: UNSLOTH_LAUNCH_OBJECTIVES,
  },
};
