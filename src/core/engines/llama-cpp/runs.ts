/** What llama.cpp runs beyond what vramplan writes for it (runs.ts): MXFP4 GGUF weights (gpt-oss). */
import type { EngineRuns } from '../runs.js';
import { LLAMA_CPP_PROFILE } from './profile.js';

const C = 'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e';

export const LLAMA_CPP_RUNS: EngineRuns = {
  // GGML_TYPE_MXFP4 (gpt-oss GGUF files), with CUDA kernels for it (ggml/src/ggml-cuda/mmq.cu).
  widen: { baseWeights: [...LLAMA_CPP_PROFILE.baseWeights, 'mxfp4'] },
  sources: {
    methods: `${C}/tools/server/README.md`,
    weights: `${C}/ggml/include/ggml.h`,
    parallel: `${C}/common/arg.cpp`,
    other: `${C}/tools/server/README.md`,
  },
};
