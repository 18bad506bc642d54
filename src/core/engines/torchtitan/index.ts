/** The torchtitan engine: its profile and launcher (a Python config recipe + torchrun). */
import type { EngineDef } from '../def.js';
import { emitTorchtitan, torchtitanBlocker } from './launch.js';
import { TORCHTITAN_PROFILE } from './profile.js';

export const TORCHTITAN: EngineDef = {
  profile: TORCHTITAN_PROFILE,
  launcher: { emit: (x) => [emitTorchtitan(x)], blocker: torchtitanBlocker },
};
