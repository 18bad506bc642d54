/** The hf-trainer engine: its profile and launcher (the Hugging Face stack's, engines/hf/). */
import type { EngineDef } from '../def.js';
import { HF_LAUNCHER } from '../hf/launch.js';
import { HF_TRAINER_PROFILE } from './profile.js';

export const HF_TRAINER: EngineDef = { profile: HF_TRAINER_PROFILE, launcher: HF_LAUNCHER };
