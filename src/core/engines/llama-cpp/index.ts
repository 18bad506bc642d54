/** The llama.cpp engine: its profile and launcher (llama-server in serve.sh + check.sh). */
import type { EngineDef } from '../def.js';
import { emitLlamaCpp, llamaCppBlocker } from './launch.js';
import { LLAMA_CPP_PROFILE } from './profile.js';

export const LLAMA_CPP: EngineDef = {
  profile: LLAMA_CPP_PROFILE,
  launcher: { emit: (x) => [emitLlamaCpp(x)], blocker: llamaCppBlocker },
};
