/** What llama.cpp rejects for a serving plan, as data (rules.ts). */
import type { Rule } from '../rules.js';
import { LLAMA_CPP_ARCH_RULE } from './architectures.js';

/**
 * The llama.cpp build llama-server is written for: the server README and common/arg.cpp read at commit 25d5b0c5
 * (tools/server/README.md); the CUDA server image of that build.
 */
export const LLAMA_CPP_COMMIT = '25d5b0c53f9a146f3d7a99a18610d9d623b5041e';
export const LLAMA_CPP_IMAGE = 'ghcr.io/ggml-org/llama.cpp:server-cuda';
/** The ROCm server image of the same builds (docs/docker.md: "Same as `server` but compiled with ROCm support"). */
export const LLAMA_CPP_ROCM_IMAGE = 'ghcr.io/ggml-org/llama.cpp:server-rocm';

export const LLAMA_CPP_RULES: readonly Rule[] = [
  LLAMA_CPP_ARCH_RULE,
  {
    id: 'llama-cpp-quantized-v-needs-fa',
    says: 'llama.cpp refuses a quantized V cache without flash attention ("quantized V cache requires flash_attn"): the launcher writes -fa on with -ctv q8_0 or q4_0',
    library: 'llama.cpp',
    versions: '>=b3000',
    source:
      'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/src/llama-context.cpp',
    effect: 'change',
    applies: (x) => x.options.kvCacheDtype === 'fp8' || x.options.kvCacheDtype === 'q4_0',
  },
];

/** The llama-server flags the launch line writes (tools/server/README.md at 25d5b0c5). */
export const LLAMA_SERVER_FLAGS = [
  '-m', // --model FNAME
  '-ngl', // --gpu-layers N
  '--n-cpu-moe', // -ncmoe N: "keep the Mixture of Experts (MoE) weights of the first N layers in the CPU" (common/arg.cpp)
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
