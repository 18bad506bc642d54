/** The unsloth engine: its profile; vramplan writes no unsloth files yet, so the planner does not rank it. */
import type { EngineDef } from '../def.js';
import { UNSLOTH_PROFILE } from './profile.js';

export const UNSLOTH: EngineDef = { profile: UNSLOTH_PROFILE, launcher: null };
