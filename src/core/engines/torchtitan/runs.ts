/** What torchtitan runs beyond what vramplan writes for it (runs.ts): sequences past the HF config's positions. */
import type { EngineRuns } from '../runs.js';

const T =
  'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/torchtitan';

export const TORCHTITAN_RUNS: EngineRuns = {
  widen: {},
  sources: {
    methods: `${T}/train.py`,
    weights: `${T}/config/job_config.py`,
    other: `${T}/train.py`,
  },
  // ModelArgs.update_from_config sets max_seq_len to training.seq_len (a warning past the original maximum) and
  // precomputes RoPE for it: torchtitan builds its own model, not the HF config's.
  extendsContext: `torchtitan sizes RoPE to training.seq_len itself (${T}/models/llama3/model/args.py update_from_config)`,
};
