/** What the hf-deepspeed engine runs, as vramplan writes it (runs.ts): Trainer with a DeepSpeed config (integrations/deepspeed.py). */
import type { EngineRuns } from '../runs.js';

const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

export const HF_DEEPSPEED_RUNS: EngineRuns = {
  widen: {},
  sources: {
    methods: `${H}/trainer.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    other: `${H}/trainer.py`,
  },
};
