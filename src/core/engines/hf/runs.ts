/**
 * What the Hugging Face training engines (hf-trainer, hf-fsdp, hf-deepspeed) run, as vramplan writes it: the
 * Trainer trains only (generation is hf-generate); each set's source is a transformers file at one commit.
 */
import type { EngineRuns } from '../runs.js';

const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

export const HF_TRAINING_RUNS: EngineRuns = {
  widen: {},
  sources: {
    methods: `${H}/trainer.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    other: `${H}/trainer.py`,
  },
};
