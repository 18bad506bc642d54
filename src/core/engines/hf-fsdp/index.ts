/** The hf-fsdp engine: its profile and launcher (the Hugging Face stack's, engines/hf/). */
import type { EngineDef } from '../def.js';
import { HF_LAUNCHER } from '../hf/launch.js';
import { HF_FSDP_PROFILE } from './profile.js';

export const HF_FSDP: EngineDef = { profile: HF_FSDP_PROFILE, launcher: HF_LAUNCHER };
