/** The Unsloth engine: its profile and launcher (FastLanguageModel + TRL SFTTrainer script). */
import type { EngineDef } from '../def.js';
import { emitUnsloth, unslothBlocker } from './launch.js';
import { UNSLOTH_PROFILE } from './profile.js';

export const UNSLOTH: EngineDef = {
  profile: UNSLOTH_PROFILE,
  launcher: { emit: (x) => [emitUnsloth(x)], blocker: unslothBlocker },
};
