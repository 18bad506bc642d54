/** What Unsloth runs beyond what vramplan writes for it (runs.ts): any --attention, RoPE-scaled contexts. */
import type { EngineRuns } from '../runs.js';

const U =
  'https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/unsloth';

export const UNSLOTH_RUNS: EngineRuns = {
  widen: {},
  sources: {
    methods: `${U}/models/loader.py`,
    parallel: `${U}/models/_utils.py`,
    weights: `${U}/models/loader.py`,
    other: `${U}/models/llama.py`,
  },
  attention: {
    runs: 'sdpa',
    why: `Unsloth picks the attention kernel itself: FlashAttention 2 where flash-attn is installed, else xformers, else SDPA, all without a score matrix (${U}/models/_utils.py HAS_FLASH_ATTENTION)`,
  },
  // FastLlamaModel.from_pretrained: max_seq_length above max_position_embeddings sets linear RoPE scaling by
  // max_seq_length / max_position_embeddings.
  extendsContext: `Unsloth scales RoPE itself when max_seq_length exceeds the model's positions (${U}/models/llama.py FastLlamaModel.from_pretrained)`,
};
