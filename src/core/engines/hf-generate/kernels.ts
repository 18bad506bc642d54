/** Which GPUs transformers runs MXFP4 and NVFP4 weights on (engines/kernels.ts reads it through the def). */
import type { EngineDef } from '../def.js';

/**
 * transformers 5.14.1 quantizers/quantizer_mxfp4.py validate_environment: on CUDA (ROCm reports its capability
 * through torch.cuda too) MXFP4 runs through the gpt-oss Triton kernels from compute capability 7.5; below it, on
 * Apple GPUs or without triton and kernels, the quantizer dequantizes the checkpoint to bf16.
 */
export const HF_GENERATE_KERNELS: NonNullable<EngineDef['kernels']> = {
  needs: {
    mxfp4: {
      cc: 7.5,
      why: 'MXFP4 through the gpt-oss Triton kernels from 7.5; below it transformers dequantizes to bf16: estimate --weights bf16 (quantizer_mxfp4.py)',
    },
    // FPQuantHfQuantizer.validate_environment: real quantization "requires a **Blackwell GPU** and qutlass"; the
    // Triton pseudo-quantization (Hopper up) emulates NVFP4 on 16-bit weights "without any speedups".
    nvfp4: {
      cc: 10,
      why: 'NVFP4 through FP-Quant with QuTLASS on Blackwell, from 10.0; below it only FP-Quant pseudo-quantization, 16-bit weights without speedup: estimate --weights bf16 (quantizer_fp_quant.py)',
    },
  },
  source:
    'https://github.com/huggingface/transformers/tree/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/quantizers',
  rocm: {
    mxfp4: {
      targets: ['gfx90a', 'gfx942', 'gfx950'],
      why: 'MXFP4 through the Triton kernels on CDNA2-4 (torch.cuda reports 9.x there)',
      searched: false,
    },
  },
};
