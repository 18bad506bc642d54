/**
 * What llama.cpp runs beyond what vramplan writes for it (runs.ts): Q4_0 and NVFP4 GGUF weights, and
 * --split-mode row over several GPUs (`--tp N`). MXFP4 GGUF weights (gpt-oss) are in its profile.
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { LLAMA_CPP_PROFILE } from './profile.js';

const C = 'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e';

/** `--tp N` on llama.cpp: --split-mode row; `--pp N`: its default layer split (with their sources). */
const rowSplit = (o: EstimateOptions): string | null =>
  o.pp > 1 && o.tp === 1
    ? `--pp ${o.pp} on llama.cpp is llama-server's default --split-mode layer over ${o.pp} GPUs: consecutive layers and their KV on each (${C}/common/arg.cpp)`
    : o.tp > 1
      ? `--tp ${o.tp} on llama.cpp is llama-server --split-mode row over ${o.tp} GPUs: each weight matrix split by rows across them (LLAMA_SPLIT_MODE_ROW: ${C}/include/llama.h; --split-mode in ${C}/common/arg.cpp), the KV cache and intermediate results whole on the main GPU (-mg: ${C}/tools/server/README.md), the worst rank estimated; vramplan writes layer split only (--pp)`
      : null;

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

export const LLAMA_CPP_RUNS: EngineRuns = {
  // GGML_TYPE_MXFP4 (gpt-oss GGUF files, profile.ts), with CUDA kernels for it (ggml/src/ggml-cuda/mmq.cu). GGML_TYPE_NVFP4
  // (block_nvfp4: 64 E2M1 values and four UE4M3 scales, 36 B, 4.5 bits a weight; ggml-org/llama.cpp@37b53fd4545847188fdad29e38ba57875efc8228
  // ggml/src/ggml-common.h), added by ggml-org/llama.cpp#19769 after the 25d5b0c5 this folder reads, which the
  // server-cuda image the launcher names tracks; its conversion keeps output and token embeddings BF16.
  // GGML_TYPE_Q4_0 (block_q4_0: 32 weights, one fp16 scale, 18 B; ggml/src/ggml-common.h at 25d5b0c5): the type of
  // llama-bench's reference runs (ggml-org/llama.cpp#4167, ggml-org/llama.cpp#15131), with MMQ/MMVQ kernels like the
  // k-quants (ggml/src/ggml-cuda/mmq.cu); estimated, not launched.
  widen: { baseWeights: [...LLAMA_CPP_PROFILE.baseWeights, 'q4_0', 'nvfp4'], tp: true },
  refusal: weightsRefusal,
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
  // ggml_backend_cuda_split_buffer splits each matrix's rows in proportion to --tensor-split, rounded to the
  // quantization block (ggml/src/ggml-cuda/ggml-cuda.cu get_row_split): no head count enters.
  tpAnyDegree: `llama.cpp's row split divides each matrix's rows in proportion to --tensor-split (${C}/ggml/src/ggml-cuda/ggml-cuda.cu get_row_split)`,
};
