/** The LitGPT engine: its profile and launcher (litgpt.yaml + `litgpt finetune_*`). */
import type { EngineDef } from '../def.js';
import { emitLitgpt, litgptBlocker } from './launch.js';
import { LITGPT_PROFILE } from './profile.js';

export const LITGPT: EngineDef = {
  profile: LITGPT_PROFILE,
  launcher: { emit: (x) => [emitLitgpt(x)], blocker: litgptBlocker },
};
