/** Which GPUs SGLang has kernels for (engines/kernels.ts reads it through the engine's def). */
import type { EngineKernels } from '../def.js';

export const SGLANG_KERNELS: EngineKernels = {
  // SGLang 0.5: FP8 W8A8 (sgl-kernel fp8 GEMMs, 8.9+); MXFP4 through triton_kernels on Hopper or natively on
  // Blackwell (gpt-oss support, 9.0+); NVFP4 (ModelOpt FP4) on Blackwell only (python/sglang/srt/layers/quantization/).
  needs: {
    fp8: { cc: 8.9, why: 'FP8 W8A8 on 8.9+' },
    mxfp4: { cc: 9.0, why: 'MXFP4 on Hopper (triton kernels) and Blackwell' },
    nvfp4: { cc: 10.0, why: 'NVFP4 on Blackwell' },
    int4: { cc: 8.0, why: 'AWQ/GPTQ Marlin on 8.0+' },
    int8: { cc: 8.0, why: 'int8 W8A8 on 8.0+' },
  },
  source:
    'https://github.com/sgl-project/sglang/tree/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt/layers/quantization',
  // ROCm (gfx targets). SGLang's AMD guide serves deepseek-ai/DeepSeek-V3 (an FP8 checkpoint) over --tp 8 on MI300X
  // (docs/platforms/amd_gpu.md @58f3bd86e589e72dee5b1005eafae7c4b0ac1c47), and its ROCm image is built for gfx942
  // (mi30x) and gfx950 (mi35x), with AITER's MXFP4 MoE switched on for gfx950 only (AITER_MXFP4_MOE_SF=1;
  // docker/rocm.Dockerfile @29ede2bec1703edd24096f036cc202f31f22ad35). AWQ/GPTQ, INT8 and NVFP4 are not listed there.
  rocm: {
    fp8: { targets: ['gfx942', 'gfx950'], why: 'FP8 W8A8 on MI300-class GPUs (gfx942, gfx950)' },
    mxfp4: { targets: ['gfx950'], why: 'MXFP4 MoE through AITER on MI355X (gfx950)' },
  },
  // fp8_e4m3 KV on GPUs with native FP8 only (8.9+; https://docs.sglang.io/advanced_features/quantized_kv_cache.html:
  // "not all attention backends support quantized KV cache").
  kvFp8: { cc: 8.9, native: 'fp8_e4m3', below: 'fp8_e4m3' },
};
