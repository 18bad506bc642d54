/** The hf-deepspeed engine (Trainer + DeepSpeed ZeRO): the Hugging Face stack's, engines/hf/. */
import type { EngineDef } from '../def.js';
import { HF_ARCHITECTURES } from '../hf/architectures.js';
import { DEEPSPEED_READER } from '../hf/from/readers.js';
import { DEEPSPEED_MEMORY } from '../hf/memory.js';
import { HF_FLASH_ONLY } from '../hf/flash-kernels.js';
import { HF_DEEPSPEED_PROFILE } from './profile.js';
import { HF_DEEPSPEED_RUNS } from './runs.js';
import { TRL_OBJECTIVES } from '../hf/profile.js';
import { HF_TRAINER_LOG } from '../hf/logs.js';
import { HF_LAUNCH_FOLDER } from '../hf/launch-folder.js';

export const HF_DEEPSPEED: EngineDef = {
  id: 'hf-deepspeed',
  abbr: 'ds',
  profile: HF_DEEPSPEED_PROFILE,
  runs: HF_DEEPSPEED_RUNS,
  claims: (o) => o.method !== 'inference',
  memory: DEEPSPEED_MEMORY,
  families: ['hf'],
  readers: [DEEPSPEED_READER],
  architectures: HF_ARCHITECTURES,
  flashOnly: HF_FLASH_ONLY,
  logs: HF_TRAINER_LOG,
  launchFolder: HF_LAUNCH_FOLDER,
  launcher: {
    objectives: TRL_OBJECTIVES,
    load: async () => {
      const { HF_DEEPSPEED_LAUNCHER } = await import('../hf/launch.js');
      return HF_DEEPSPEED_LAUNCHER;
    },
  },
};
