/**
 * What llama.cpp runs beyond what vramplan writes for it (runs.ts): Q4_0 and NVFP4 GGUF weights, and
 * --split-mode row over several GPUs (`--tp N`). MXFP4 GGUF weights (gpt-oss) are in its profile.
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { Arch } from '../../model/arch.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { LLAMA_CPP_PROFILE } from './profile.js';

const C = 'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e';
const LLAMA_MODEL =
  'https://github.com/ggml-org/llama.cpp/blob/a5410f046c01d01330c8a42f13b64a211fedf2c3';

/** `--tp N` on llama.cpp: --split-mode row; `--pp N`: its default layer split (with their sources). */
const rowSplit = (o: EstimateOptions): string | null =>
  o.pp > 1 && o.tp === 1
    ? `--pp ${o.pp} on llama.cpp is llama-server's default --split-mode layer over ${o.pp} GPUs: consecutive layers and their KV on each (${C}/common/arg.cpp)`
    : o.tp > 1
      ? `--tp ${o.tp} on llama.cpp is llama-server --split-mode row over ${o.tp} GPUs: each weight matrix split by rows across them (LLAMA_SPLIT_MODE_ROW: ${C}/include/llama.h; --split-mode in ${C}/common/arg.cpp), the KV cache and intermediate results whole on the main GPU (-mg: ${C}/tools/server/README.md), the worst rank estimated; vramplan writes layer split only (--pp)`
      : null;

/**
 * Where --split-mode row puts a MoE model's tensors (src/llama-model.cpp @a5410f04 load_tensors; the file at the
 * pinned 25d5b0c5 is not in the index): each layer and its K/V cache go to a GPU by the -ts split points whatever the
 * split mode (get_layer_buft_list; llama-kv-cache.cpp puts layer il's K/V on dev_layer(il)), and select_weight_buft
 * gives a weight the first buffer of its layer's list [split, that GPU's own, CPU] whose supports_op accepts it.
 * ggml-cuda's supports_op (ggml-cuda.cu @f6d77a1b) refuses a split-buffer source to any op but GGML_OP_MUL_MAT and a
 * split weight with ne[2] > 1, so ffn_*_exps (GGML_OP_MUL_MAT_ID, 3-D) land whole in their layer's GPU's own buffer;
 * docs/multi-gpu.md @5815cb84: row "splits only dense weights across GPUs". The layer split places the experts and
 * the cache so, and runs the layers one GPU after another, as this does: `--tp N` on a MoE model is estimated as it.
 */
function moeRowSplitAsLayers(arch: Arch, o: EstimateOptions): string | null {
  if (o.tp <= 1 || !arch.groups.some((g) => g.experts > 1)) return null;
  const n = o.tp;
  o.pp *= o.tp;
  o.tp = 1;
  return `--tp ${n} on llama.cpp is --split-mode row, which splits only a MoE model's dense matrices by rows over the GPUs: each layer's experts (ffn_*_exps, GGML_OP_MUL_MAT_ID, which ggml-cuda's split buffer refuses: ggml-cuda.cu @f6d77a1b supports_op) and its K/V cache stay whole on the layer's GPU by -ts, and the layers run one GPU after another, as in the layer split (${LLAMA_MODEL}/src/llama-model.cpp load_tensors; docs/multi-gpu.md: row "splits only dense weights across GPUs"): estimated as the layer split over ${n} GPUs (--gpus ${n}); the dense matrices' rows spread over the GPUs hold about the same bytes a GPU at an even -ts; their split over the GPUs and its per-matrix peer copies are not timed`;
}

/** What llama.cpp loads: GGUF files of ggml types. */
const LOADS = `GGUF files, whose tensors are ggml types (${C}/ggml/include/ggml.h; NVFP4 since ggml-org/llama.cpp#19769)`;

/** A checkpoint format llama.cpp has no ggml type for: the field, what it loads, and the GGUF counterpart. */
function weightsRefusal(o: EstimateOptions, set: RunsSet | 'other'): string | null {
  if (set !== 'weights') return null;
  const counterpart: Partial<Record<string, string>> = {
    int4: 'q4_k_m',
    nf4: 'q4_k_m',
    fp4: 'q4_k_m',
    int8: 'q8_0',
    fp8: 'q8_0',
  };
  const to = counterpart[o.weights];
  if (to === undefined) return null;
  const runs = LLAMA_CPP_RUNS.widen.baseWeights!.join(', ');
  return `--weights: got '${o.weights}'; expected one of ${runs}: llama.cpp loads ${LOADS}, not ${o.weights} safetensors; the ${o.weights} checkpoint's GGUF counterpart is --weights ${to}`;
}

/**
 * `--speculative` on llama.cpp: llama-server at 25d5b0c5 drafts only with a second model (-md/--model-draft, with
 * --draft-max/--draft-min: the "speculative parameters" of common/arg.cpp); its n-gram lookup is the llama-lookup
 * example (LLAMA_EXAMPLE_LOOKUP), and it has no EAGLE-3 or MTP drafter. Reached only where the configuration gets
 * past engineRejects' earlier checks (weights, then expert parallelism or DP attention).
 */
function speculativeRefusal(o: EstimateOptions, set: RunsSet | 'other'): string | null {
  if (set !== 'other' || !o.speculative || (o.ep ?? 1) > 1 || o.dpAttention) return null;
  return `--speculative: got '${o.speculative}'; llama-server (25d5b0c5) speculates only with a separate draft model (-md/--model-draft with --draft-max, the speculative parameters of ${C}/common/arg.cpp): it has no EAGLE-3 or MTP drafter, and n-gram lookup is the llama-lookup example (LLAMA_EXAMPLE_LOOKUP), not the server; vramplan does not model a draft model: estimate without --speculative, or on vllm or sglang`;
}

export const LLAMA_CPP_RUNS: EngineRuns = {
  // GGML_TYPE_MXFP4 (gpt-oss GGUF files, profile.ts), with CUDA kernels for it (ggml/src/ggml-cuda/mmq.cu). GGML_TYPE_NVFP4
  // (block_nvfp4: 64 E2M1 values and four UE4M3 scales, 36 B, 4.5 bits a weight; ggml-org/llama.cpp@37b53fd4545847188fdad29e38ba57875efc8228
  // ggml/src/ggml-common.h), added by ggml-org/llama.cpp#19769 after the 25d5b0c5 this folder reads, which the
  // server-cuda image the launcher names tracks; its conversion keeps output and token embeddings BF16.
  // GGML_TYPE_Q4_0 (block_q4_0: 32 weights, one fp16 scale, 18 B; ggml/src/ggml-common.h at 25d5b0c5), the type of
  // llama-bench's reference runs (ggml-org/llama.cpp#4167, ggml-org/llama.cpp#15131), with MMQ/MMVQ kernels like the
  // k-quants (ggml/src/ggml-cuda/mmq.cu), is in the profile (launched).
  widen: { baseWeights: [...LLAMA_CPP_PROFILE.baseWeights, 'nvfp4'], tp: true },
  refusal: (o, set) => weightsRefusal(o, set) ?? speculativeRefusal(o, set),
  sources: {
    methods: `${C}/tools/server/README.md`,
    weights: `${C}/ggml/include/ggml.h`,
    parallel: `${C}/common/arg.cpp`,
    other: `${C}/tools/server/README.md`,
  },
  limits: {
    seq: `llama-server caps each slot's context at the model's training context ("the slot context exceeds the training context of the model - capping", ${C}/tools/server/server.cpp)`,
  },
  parallelNote: rowSplit,
  estimatedAs: moeRowSplitAsLayers,
  // ggml_backend_cuda_split_buffer splits each matrix's rows in proportion to --tensor-split, rounded to the
  // quantization block (ggml/src/ggml-cuda/ggml-cuda.cu get_row_split): no head count enters.
  tpAnyDegree: `llama.cpp's row split divides each matrix's rows in proportion to --tensor-split (${C}/ggml/src/ggml-cuda/ggml-cuda.cu get_row_split)`,
};
