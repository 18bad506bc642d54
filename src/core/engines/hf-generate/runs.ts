/** What the hf-generate engine runs, as vramplan writes it (runs.ts): GenerationMixin.generate: no training entry point. */
import type { EngineRuns } from '../runs.js';

const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

export const HF_GENERATE_RUNS: EngineRuns = {
  widen: {},
  sources: {
    methods: `${H}/generation/utils.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    other: `${H}/generation/utils.py`,
  },
};
