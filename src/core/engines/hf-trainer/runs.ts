/** What the hf-trainer engine runs, as vramplan writes it (runs.ts): Trainer: training only (generation is hf-generate), FP8 through Accelerate. */
import { HF_ACCELERATE_RUNS } from '../hf/runs.js';

export const HF_TRAINER_RUNS = HF_ACCELERATE_RUNS;
