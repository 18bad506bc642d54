/** What llama.cpp rejects for a serving plan, as data (rules.ts). */
import type { Rule, RuleInput } from '../rules.js';
import { LLAMA_CPP_ARCH_RULE } from './architectures.js';

/**
 * The llama.cpp build llama-server is written for: the server README and common/arg.cpp read at commit 25d5b0c5
 * (tools/server/README.md); the CUDA server image of that build.
 */
export const LLAMA_CPP_COMMIT = '25d5b0c53f9a146f3d7a99a18610d9d623b5041e';
export const LLAMA_CPP_IMAGE = 'ghcr.io/ggml-org/llama.cpp:server-cuda';

/** Layers of every group: the count the layer split (memory/inference.ts layerSplit) and -ngl are taken over. */
const allLayers = (x: RuleInput): number => x.arch.groups.reduce((a, g) => a + g.count, 0);

export const LLAMA_CPP_RULES: readonly Rule[] = [
  LLAMA_CPP_ARCH_RULE,
  {
    // -ngl is compared with the text model's n_layer (the GGUF's block_count, llama-model.cpp); the vision tower
    // is a separate mmproj GGUF (convert_hf_to_gguf.py --mmproj, docs/multimodal.md) that text serving never loads.
    // The layer split counts the tower's layers too, so a partial split of such a model writes an -ngl past the
    // text layers: llama-server puts every layer on the GPU, more than the plan holds there.
    id: 'llama-cpp-ngl-text-layers',
    says: "llama.cpp's -ngl counts the text model's layers only (the vision tower is a separate mmproj file): a partial layer offload of a model with a vision tower, whose split vramplan takes over the tower's layers too, is not planned; every layer on the GPU is",
    library: 'llama.cpp',
    versions: '>=b3000',
    source: `https://github.com/ggml-org/llama.cpp/blob/${LLAMA_CPP_COMMIT}/src/llama-model.cpp`,
    effect: 'forbid',
    applies: (x) =>
      x.options.gpuLayers !== undefined &&
      x.options.gpuLayers <= allLayers(x) &&
      x.arch.groups.some((g) => g.name === 'vision'),
  },
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
