/** What the hf-fsdp engine runs, as vramplan writes it (runs.ts): Trainer under Accelerate FSDP (fsdp_config). */
import { HF_ACCELERATE_RUNS } from '../hf/runs.js';

export const HF_FSDP_RUNS = HF_ACCELERATE_RUNS;
