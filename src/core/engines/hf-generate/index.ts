/** The transformers generate() engine: its profile and launcher (generate.py). */
import type { EngineDef } from '../def.js';
import { emitGenerate, generateBlocker } from '../vllm/launch.js';
import { HF_GENERATE_PROFILE } from './profile.js';

export const HF_GENERATE: EngineDef = {
  profile: HF_GENERATE_PROFILE,
  launcher: { emit: (x) => [emitGenerate(x)], blocker: (x) => generateBlocker(x.options) },
};
