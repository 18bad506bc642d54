/** The torchtune engine: its profile and launcher (torchtune recipe YAML + tune run). */
import type { EngineDef } from '../def.js';
import { emitTorchtune, torchtuneBlocker } from './launch.js';
import { TORCHTUNE_PROFILE } from './profile.js';

export const TORCHTUNE: EngineDef = {
  profile: TORCHTUNE_PROFILE,
  launcher: { emit: (x) => [emitTorchtune(x)], blocker: torchtuneBlocker, objectives: ['dpo'] },
};
