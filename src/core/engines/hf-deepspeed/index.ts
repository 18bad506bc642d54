/** The hf-deepspeed engine: its profile and launcher (the Hugging Face stack's, engines/hf/). */
import type { EngineDef } from '../def.js';
import { HF_DEEPSPEED_LAUNCHER } from '../hf/launch.js';
import { HF_DEEPSPEED_PROFILE } from './profile.js';

export const HF_DEEPSPEED: EngineDef = {
  profile: HF_DEEPSPEED_PROFILE,
  launcher: HF_DEEPSPEED_LAUNCHER,
};
