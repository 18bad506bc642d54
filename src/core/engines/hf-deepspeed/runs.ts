/** What the hf-deepspeed engine runs, as vramplan writes it (runs.ts): Trainer with a DeepSpeed config (integrations/deepspeed.py). */
import type { EngineRuns } from '../runs.js';
import { HF_TRAINING_RUNS, hfZeroRefusal } from '../hf/runs.js';

export const HF_DEEPSPEED_RUNS: EngineRuns = {
  ...HF_TRAINING_RUNS,
  refusal: hfZeroRefusal('hf-deepspeed'),
};
