/** What SGLang runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import { GGUF_DTYPES } from '../../../schema/estimate.js';
import type { EngineRuns } from '../runs.js';
import { SGLANG_PROFILE } from './profile.js';

const S =
  'https://github.com/sgl-project/sglang/blob/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt';

export const SGLANG_RUNS: EngineRuns = {
  // GGUF checkpoints load through its GGUF quantization method (ported from llama.cpp's kernels), bitsandbytes NF4
  // through its bitsandbytes method (layers/quantization/bitsandbytes.py); vramplan writes neither.
  widen: { baseWeights: [...SGLANG_PROFILE.baseWeights, 'nf4', ...GGUF_DTYPES] },
  sources: {
    // The server and Engine generate; no training entry point.
    methods: `${S}/server_args.py`,
    weights: `${S}/layers/quantization/gguf.py`,
    other: `${S}/server_args.py`,
  },
};
