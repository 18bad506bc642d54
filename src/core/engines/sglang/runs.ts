/** What SGLang runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import type { EngineRuns } from '../runs.js';

const S =
  'https://github.com/sgl-project/sglang/blob/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt';

export const SGLANG_RUNS: EngineRuns = {
  widen: {},
  sources: {
    // The server and Engine generate; no training entry point.
    methods: `${S}/server_args.py`,
    weights: `${S}/layers/quantization/__init__.py`,
    other: `${S}/server_args.py`,
  },
};
