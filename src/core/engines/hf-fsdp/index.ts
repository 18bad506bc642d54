/** The hf-fsdp engine (Trainer + Accelerate FSDP): the Hugging Face stack's, engines/hf/. */
import type { EngineDef } from '../def.js';
import { HF_ARCHITECTURES } from '../hf/architectures.js';
import { ACCELERATE_READER } from '../hf/from/readers.js';
import { HF_MEMORY } from '../hf/memory.js';
import { HF_FLASH_ONLY } from '../hf/flash-kernels.js';
import { HF_FSDP_PROFILE } from './profile.js';
import { HF_FSDP_RUNS } from './runs.js';
import { TRL_OBJECTIVES } from '../hf/profile.js';
import { HF_TRAINER_LOG } from '../hf/logs.js';
import { HF_LAUNCH_FOLDER } from '../hf/launch-folder.js';

export const HF_FSDP: EngineDef = {
  id: 'hf-fsdp',
  abbr: 'fsdp',
  profile: HF_FSDP_PROFILE,
  runs: HF_FSDP_RUNS,
  claims: (o) => o.method !== 'inference' && o.zero > 0,
  memory: HF_MEMORY,
  readers: [ACCELERATE_READER],
  architectures: HF_ARCHITECTURES,
  flashOnly: HF_FLASH_ONLY,
  logs: HF_TRAINER_LOG,
  launchFolder: HF_LAUNCH_FOLDER,
  launcher: {
    objectives: TRL_OBJECTIVES,
    load: async () => {
      const { HF_LAUNCHER } = await import('../hf/launch.js');
      return HF_LAUNCHER;
    },
  },
};
