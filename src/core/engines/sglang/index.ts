/** The SGLang engine: its profile and launcher (serve.sh + check.sh). */
import type { EngineDef } from '../def.js';
import { emitSglang, sglangBlocker } from './launch.js';
import { SGLANG_PROFILE } from './profile.js';

export const SGLANG: EngineDef = {
  profile: SGLANG_PROFILE,
  launcher: { emit: (x) => [emitSglang(x)], blocker: sglangBlocker },
};
