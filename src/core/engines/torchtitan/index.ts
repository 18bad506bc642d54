/** The torchtitan engine: its profile; vramplan writes no torchtitan files yet, so the planner does not rank it. */
import type { EngineDef } from '../def.js';
import { TORCHTITAN_PROFILE } from './profile.js';

export const TORCHTITAN: EngineDef = { profile: TORCHTITAN_PROFILE, launcher: null };
