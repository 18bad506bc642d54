/** What the hf-deepspeed engine runs, as vramplan writes it (runs.ts): Trainer with a DeepSpeed config (integrations/deepspeed.py). */
import { HF_TRAINING_RUNS } from '../hf/runs.js';

export const HF_DEEPSPEED_RUNS = HF_TRAINING_RUNS;
