/** What vLLM runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import { GGUF_DTYPES } from '../../../schema/estimate.js';
import type { EngineRuns } from '../runs.js';
import { VLLM_PROFILE } from './profile.js';

const V = 'https://github.com/vllm-project/vllm/blob/0052a5b818980ce8a0477706aaf9f75bd5af72cd/vllm';

export const VLLM_RUNS: EngineRuns = {
  // GGUF checkpoints load through its GGUF quantization method (ported from llama.cpp's kernels); vramplan writes none.
  widen: { baseWeights: [...VLLM_PROFILE.baseWeights, ...GGUF_DTYPES] },
  sources: {
    // LLM.generate / the OpenAI server: no training entry point.
    methods: `${V}/entrypoints/llm.py`,
    weights: `${V}/model_executor/layers/quantization/gguf.py`,
    other: `${V}/engine/arg_utils.py`,
  },
  limits: {
    tp: `vLLM raises "Total number of attention heads must be divisible by tensor parallel size" (${V}/config/model.py verify_with_parallel_config)`,
    seq: `vLLM raises on a --max-model-len past the model's derived length unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (${V}/config/model.py _get_and_verify_max_len)`,
  },
};
