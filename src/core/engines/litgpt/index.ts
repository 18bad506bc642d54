/** The litgpt engine: its profile; vramplan writes no litgpt files yet, so the planner does not rank it. */
import type { EngineDef } from '../def.js';
import { LITGPT_PROFILE } from './profile.js';

export const LITGPT: EngineDef = { profile: LITGPT_PROFILE, launcher: null };
