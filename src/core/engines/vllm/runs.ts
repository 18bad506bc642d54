/** What vLLM runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import { GGUF_DTYPES } from '../../../schema/estimate.js';
import type { EngineRuns } from '../runs.js';
import { VLLM_PROFILE } from './profile.js';

const V = 'https://github.com/vllm-project/vllm/blob/0052a5b818980ce8a0477706aaf9f75bd5af72cd/vllm';
const QKV =
  'https://github.com/vllm-project/vllm/blob/0036d38de46c5d48fdedeb658dedc0fc0f95677d/vllm/model_executor/layers/linear.py QKVParallelLinear.__init__';

export const VLLM_RUNS: EngineRuns = {
  // GGUF checkpoints load through its GGUF quantization method (ported from llama.cpp's kernels); vramplan writes none.
  // A pre-quantized bitsandbytes FP4 checkpoint loads through the bitsandbytes plugin, which reads its
  // quant_state.bitsandbytes__fp4 (vllm-bnb-plugin 0.0.3 wheel, vllm_bnb_plugin/bitsandbytes_loader.py:348;
  // config.py:100 takes bnb_4bit_quant_type); vramplan writes in-flight quantization only, which is NF4.
  widen: { baseWeights: [...VLLM_PROFILE.baseWeights, 'fp4', ...GGUF_DTYPES] },
  sources: {
    // LLM.generate / the OpenAI server: no training entry point.
    methods: `${V}/entrypoints/llm.py`,
    weights: `${V}/model_executor/layers/quantization/gguf.py`,
    other: `${V}/engine/arg_utils.py`,
  },
  limits: {
    // QKVParallelLinear.__init__: num_heads = divide(total_num_heads, tp_size); KV heads divide(total, tp_size) or,
    // at tp_size >= total_num_kv_heads, replicas = divide(tp_size, total) (divide asserts an exact division).
    tp: `vLLM raises "Total number of attention heads must be divisible by tensor parallel size" (${V}/config/model.py verify_with_parallel_config), and QKVParallelLinear asserts that --tensor-parallel-size divides the KV heads or, when it is the larger, is a multiple of them (replicated) (${QKV})`,
    seq: `vLLM raises on a --max-model-len past the model's derived length unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (${V}/config/model.py _get_and_verify_max_len)`,
  },
};
