/** What llama.cpp rejects for a serving plan, as data (rules.ts). */
import type { Rule } from '../rules.js';
import { LLAMA_CPP_ARCH_RULE } from './architectures.js';

/**
 * The llama.cpp build llama-server is written for: the server README and common/arg.cpp read at commit 25d5b0c5
 * (tools/server/README.md); the CUDA server image of that build.
 */
export const LLAMA_CPP_COMMIT = '25d5b0c53f9a146f3d7a99a18610d9d623b5041e';
export const LLAMA_CPP_IMAGE = 'ghcr.io/ggml-org/llama.cpp:server-cuda';

export const LLAMA_CPP_RULES: readonly Rule[] = [
  LLAMA_CPP_ARCH_RULE,
  {
    id: 'llama-cpp-quantized-v-needs-fa',
    says: 'llama.cpp refuses a quantized V cache without flash attention ("quantized V cache requires flash_attn"): the launcher writes -fa on with -ctv q8_0',
    library: 'llama.cpp',
    versions: '>=b3000',
    source:
      'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/src/llama-context.cpp',
    effect: 'change',
    applies: (x) => x.options.kvCacheDtype === 'fp8',
  },
  {
    // Where --split-mode row puts a MoE model's tensors (llama.cpp src/llama-model.cpp @a5410f04, load_tensors; the
    // file at the pinned 25d5b0c5 is not in the index): each layer and its K/V cache go to a GPU by the -ts split
    // points whatever the split mode (get_layer_buft_list; llama-kv-cache.cpp puts layer il's K/V on dev_layer(il)),
    // and select_weight_buft gives a weight the first buffer of its layer's list [split, that GPU's own, CPU] whose
    // supports_op accepts it. ggml-cuda's supports_op (ggml-cuda.cu @f6d77a1b) refuses a split-buffer source to any
    // op but GGML_OP_MUL_MAT and a split weight with ne[2] > 1, so ffn_*_exps (GGML_OP_MUL_MAT_ID, 3-D) land whole in
    // their layer's GPU's own buffer. docs/multi-gpu.md @5815cb84: row "splits only dense weights across GPUs".
    id: 'llama-cpp-row-split-moe',
    says: "llama.cpp's --split-mode row splits only a MoE model's dense matrices over the GPUs: each layer and its K/V cache go to one GPU by -ts as in the layer split, and the experts (ffn_*_exps, GGML_OP_MUL_MAT_ID) fall through the split buffer, which ggml-cuda's supports_op refuses to any op but GGML_OP_MUL_MAT and to 3-D weights (ggml-cuda.cu @f6d77a1b), into that GPU's own buffer, whole; the --tp estimate splits every weight and keeps the cache whole on the main GPU, which is not that placement: --gpus N (layer split) places the experts and the cache the same way",
    library: 'llama.cpp',
    versions: '>=b3000',
    source:
      'https://github.com/ggml-org/llama.cpp/blob/a5410f046c01d01330c8a42f13b64a211fedf2c3/src/llama-model.cpp',
    effect: 'forbid',
    applies: (x) => x.options.tp > 1 && x.arch.groups.some((g) => g.experts > 1),
  },
];

/** The llama-server flags the launch line writes (tools/server/README.md at 25d5b0c5). */
export const LLAMA_SERVER_FLAGS = [
  '-m', // --model FNAME
  '-ngl', // --gpu-layers N
  '-c', // --ctx-size N (all slots together)
  '-np', // --parallel N (slots)
  '-ctk', // --cache-type-k TYPE (f16, q8_0, ...)
  '-ctv', // --cache-type-v TYPE
  '-fa', // --flash-attn on|off|auto
  '-sm', // --split-mode none|layer|row (common/arg.cpp at 145b6280)
  '-ts', // --tensor-split N0,N1,... (proportions per GPU)
  '--cache-reuse', // min chunk size to reuse from the cache by KV shifting (server only)
  '--metrics', // Prometheus-compatible /metrics endpoint (server only)
  '--host',
  '--port',
] as const;
