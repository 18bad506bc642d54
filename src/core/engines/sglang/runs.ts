/** What SGLang runs, as vramplan writes it (runs.ts): kernels per GPU are in ../kernels.ts. */
import { GGUF_DTYPES } from '../../../schema/estimate.js';
import type { EngineRuns } from '../runs.js';
import { SGLANG_PROFILE } from './profile.js';
import { SGLANG_VERSION } from './rules.js';

const S =
  'https://github.com/sgl-project/sglang/blob/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt';

const WHEEL = `https://pypi.org/project/sglang/${SGLANG_VERSION}/ (wheel)`;

export const SGLANG_RUNS: EngineRuns = {
  // GGUF checkpoints load through its GGUF quantization method (ported from llama.cpp's kernels), sharded over
  // --tp-size like any linear (sglang 0.5.23 wheel, sglang/srt/layers/linear.py:733-744 and 1349-1361 narrow each
  // GGUF weight to the rank's shard), bitsandbytes NF4 through its bitsandbytes method
  // (layers/quantization/bitsandbytes.py), and a pre-quantized bitsandbytes FP4 checkpoint, whose
  // quant_state.bitsandbytes__fp4 its loader reads (sglang/srt/model_loader/loader.py:2802-2803; in flight it
  // quantizes to NF4 only, :2855); vramplan writes none of them.
  widen: { baseWeights: [...SGLANG_PROFILE.baseWeights, 'nf4', 'fp4', ...GGUF_DTYPES] },
  sources: {
    // The server and Engine generate; no training entry point.
    methods: `${S}/server_args.py`,
    weights: `${S}/layers/quantization/gguf.py`,
    other: `${S}/server_args.py`,
  },
  limits: {
    tp: `SGLang's attention layers assert total_num_heads % tp_size == 0, and total_num_kv_heads % tp_size == 0 or, with fewer KV heads than tp_size, tp_size % total_num_kv_heads == 0 (replicated) (${WHEEL} sglang/srt/models/llama.py:183-193, as in its other models)`,
    seq: `SGLang raises on a --context-length past the derived one unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (${WHEEL} sglang/srt/configs/model_config.py:1291-1316)`,
  },
};
