/**
 * What llama-server runs by GPU (engines/kernels.ts): its GGUF weight types need no least compute capability of
 * the planner's (ggml's CUDA backend dequantizes them on any card it builds for), and its quantized KV cache is
 * an integer type, not FP8, so it needs no FP8 hardware.
 */
import type { EngineKernels } from '../def.js';

export const LLAMA_CPP_KERNELS: EngineKernels = {
  needs: {},
  source:
    'llama.cpp tools/server/README.md --cache-type-k/-v (f32, f16, bf16, q8_0, q4_0, ...) at 25d5b0c53f9a146f3d7a99a18610d9d623b5041e',
  // -ctk/-ctv q8_0: block_q8_0, 32 int8 values and one fp16 scale (ggml/src/ggml-common.h); the quantized V cache
  // runs under flash attention (rule llama-cpp-quantized-v-needs-fa), whose CUDA vector kernels read q8_0 K and V
  // on every architecture ggml builds for (ggml/src/ggml-cuda/fattn-vec.cuh). cc 0: no least capability.
  kvFp8: { cc: 0, native: 'q8_0', below: 'q8_0' },
};
