/** The vLLM engine: its profile and launcher (serve.sh + check.sh). */
import type { EngineDef } from '../def.js';
import { emitVllm, vllmBlocker } from './launch.js';
import { VLLM_PROFILE } from './profile.js';

export const VLLM: EngineDef = {
  profile: VLLM_PROFILE,
  launcher: { emit: (x) => [emitVllm(x)], blocker: vllmBlocker },
};
