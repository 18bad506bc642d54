/** What vLLM runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import type { EngineRuns } from '../runs.js';

const V = 'https://github.com/vllm-project/vllm/blob/0052a5b818980ce8a0477706aaf9f75bd5af72cd/vllm';

export const VLLM_RUNS: EngineRuns = {
  widen: {},
  sources: {
    // LLM.generate / the OpenAI server: no training entry point.
    methods: `${V}/entrypoints/llm.py`,
    weights: `${V}/model_executor/layers/quantization/__init__.py`,
    other: `${V}/engine/arg_utils.py`,
  },
};
