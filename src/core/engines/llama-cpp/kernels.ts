/**
 * llama.cpp's kernel table for the planner (engines/kernels.ts): every GGUF type runs on every GPU it builds for,
 * so no format needs a compute capability; an fp8 KV cache is written as q8_0 blocks (memory.ts fp8KvType,
 * `-ctk q8_0 -ctv q8_0`, tools/server/README.md --cache-type-k at 25d5b0c5), an int8 format its own CUDA, HIP and
 * Metal attention kernels read without FP8 hardware, so the search offers it on every GPU (flash attention on:
 * rule llama-cpp-quantized-v-needs-fa).
 */
import type { EngineKernels } from '../def.js';

export const LLAMA_CPP_KERNELS: EngineKernels = {
  needs: {},
  source: 'https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md',
  kvFp8: { cc: 0, native: 'q8_0', below: 'q8_0' },
};
