/** Which GPUs vLLM has kernels for (engines/kernels.ts reads it through the engine's def). */
import type { EngineKernels } from '../def.js';
import type { RocmKernelNames } from '../../../schema/time.js';

/**
 * What vLLM runs on AMD GPUs in place of the CUDA families (FrameworkProfile.rocmKernelNames), named in estimates and
 * plans; the time model prices the family (ROCm's FP8 W8A8 through time/decode.ts KERNELS.cutlass.rocm and
 * engines/vllm/rocm-gemm.ts).
 */
export const VLLM_ROCM_KERNEL_NAMES: RocmKernelNames = {
  // ROCm has no CUTLASS: _POSSIBLE_FP8_KERNELS[ROCM] is ROCmFP8ScaledMMLinearKernel (per-tensor scales: wvSplitKQ for
  // up to 4 rows, else torch._scaled_mm) then the PerTensor/RowWise/ChannelWise torch kernels, all torch._scaled_mm,
  // i.e. hipBLASLt (quantization/kernels/scaled_mm/__init__.py @03fad5d4, rocm.py @08386ee1df6efe25f38a6e6c888f2034ae19a43f).
  fp8: { cutlass: 'hipblaslt' },
  // _POSSIBLE_INT8_KERNELS[ROCM]: AiterInt8ScaledMMLinearKernel (VLLM_ROCM_USE_AITER, off by default), then Triton.
  int8: { cutlass: 'triton' },
  // RocmPlatform.verify_quantization turns VLLM_USE_TRITON_AWQ on for AWQ ("Using AWQ quantization with ROCm, but
  // VLLM_USE_TRITON_AWQ is not set, enabling VLLM_USE_TRITON_AWQ.", vllm/platforms/rocm.py @v0.30.0 L977-982), and
  // awq_marlin is "overwritten with" awq there (the table below); GPTQ keeps its own (ExLlama) kernels, named gptq.
  int4: { awq: 'triton-awq' },
  // get_mxfp4_backend on ROCm with triton_kernels: Mxfp4Backend.TRITON, matmul_ogs (vllm 0.11.0 wheel,
  // vllm/model_executor/layers/quantization/mxfp4.py; time/decode.ts KERNELS.marlin.rocmMoeIssue times it).
  mxfp4: { marlin: 'triton' },
  // PetitNvFp4Config takes ModelOpt NVFP4 checkpoints on ROCm (petit.py @1d321368, the table below).
  nvfp4: { marlin: 'petit' },
};

export const VLLM_KERNELS: EngineKernels = {
  // vLLM 0.33: FP8 W8A8 needs 8.9+, Ampere (8.0+) runs FP8 weight-only through Marlin
  // (https://docs.vllm.ai/en/latest/features/quantization/fp8.html); MXFP4/NVFP4 run natively on Blackwell and
  // through the FP4 Marlin kernels from 8.0 (vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py);
  // AWQ/GPTQ Marlin needs 8.0, the plain AWQ/GPTQ kernels 7.5; bitsandbytes 7.0.
  needs: {
    fp8: { cc: 8.0, why: 'FP8 W8A8 on 8.9+, FP8 Marlin (weight-only) on 8.0+' },
    mxfp4: { cc: 8.0, why: 'MXFP4 on Blackwell, FP4 Marlin on 8.0+' },
    nvfp4: { cc: 8.0, why: 'NVFP4 on Blackwell, FP4 Marlin on 8.0+' },
    // The table's GPTQ row runs on Volta (SM 7.0), its AWQ row from Turing: GPTQ's own kernels (GPTQConfig, not Marlin).
    int4: {
      cc: 7.5,
      why: 'AWQ/GPTQ Marlin on 8.0+, AWQ/GPTQ kernels on 7.5, GPTQ kernels on 7.0 (--quant-format gptq)',
      formats: { gptq: 7.0 },
    },
    int8: { cc: 7.5, why: 'int8 W8A8 CUTLASS on 7.5+' },
    nf4: { cc: 7.0, why: 'bitsandbytes on 7.0+' },
    fp4: { cc: 7.0, why: 'bitsandbytes on 7.0+' },
  },
  source:
    'https://github.com/vllm-project/vllm/blob/5ee0c1f91ca310f2c3abef3c64dbf52bb6df0ab9/docs/features/quantization/supported_hardware.md',
  // ROCm (gfx targets). The supported-hardware table above lists only FP8 W8A8 on AMD GPUs, but vLLM's own
  // RocmPlatform.supported_quantization takes awq and gptq (their Marlin variants "overwritten with" the plain
  // kernels), fp8, compressed-tensors, gguf, mxfp4, petit_nvfp4 and bitsandbytes (vllm/platforms/rocm.py
  // @001eda31e3d032e9dc864e97f3630358b2ff8b5a); vllm 0.33.0 runs bitsandbytes through a plugin (launch.ts
  // vllmRequirements); Petit's NVFP4 kernels cover gfx90a and gfx942. FP8 matrix instructions arrived with CDNA 3 (gfx942, whose FP8 is
  // e4m3fnuz: vllm/platforms/rocm.py is_fp8_fnuz) and continue on gfx950; CDNA 2 (gfx90a) has none.
  rocm: {
    fp8: { targets: ['gfx942', 'gfx950'], why: 'FP8 W8A8 on MI300-class GPUs (gfx942, gfx950)' },
    // gpt-oss's MXFP4 experts: "you can run it on ... MI300x, MI325x, MI355x", `vllm serve openai/gpt-oss-120b` on
    // MI300x/MI325x (gfx942) and MI355x (gfx950) (vllm-project/recipes OpenAI/GPT-OSS.md @00143a1a4aace5143b6825bcaa0fc30505015c61).
    mxfp4: {
      targets: ['gfx942', 'gfx950'],
      why: 'MXFP4 (gpt-oss) on MI300-class GPUs (gfx942, gfx950)',
    },
    int4: {
      targets: ['gfx90a', 'gfx942', 'gfx950'],
      why: 'AWQ/GPTQ int4 (their plain kernels) on gfx90a, gfx942 and gfx950',
      searched: false, // timed at Marlin's efficiency: not offered where the real kernels differ
    },
    nvfp4: {
      targets: ['gfx90a', 'gfx942'],
      why: 'NVFP4 through Petit on gfx90a and gfx942',
      searched: false,
      elsewhere:
        'on ROCm PetitNvFp4Config.override_quantization_method takes every ModelOpt NVFP4 checkpoint, whose kernels it states for two targets ("Petit supports the gfx90a and gfx942 GPUs", get_min_capability) (https://github.com/vllm-project/vllm/blob/1d321368081bca440d66e510e34b420267f7fa27/vllm/model_executor/layers/quantization/petit.py)',
    },
    // bitsandbytes: in RocmPlatform.supported_quantization (above), and the vllm-bnb-plugin 0.0.3 wheel asks for
    // bitsandbytes>=0.49.2 on ROCm ("return \"0.49.2\" if current_platform.is_rocm() else \"0.48.1\"",
    // vllm_bnb_plugin/quantization/utils.py:47-48), whose ROCm builds cover gfx90a and gfx942, gfx950 from ROCm 7.0
    // (bitsandbytes 0.49.2 docs/source/installation.mdx:200-205).
    nf4: {
      targets: ['gfx90a', 'gfx942', 'gfx950'],
      why: 'bitsandbytes 4-bit (vllm-bnb-plugin, bitsandbytes>=0.49.2) on gfx90a, gfx942 and gfx950',
      searched: false, // timed as the CUDA bitsandbytes kernels: not offered where the real kernels differ
    },
    fp4: {
      targets: ['gfx90a', 'gfx942', 'gfx950'],
      why: 'bitsandbytes FP4 (vllm-bnb-plugin) on gfx90a, gfx942 and gfx950',
      searched: false,
    },
    // int8 W8A8 checkpoints load as compressed-tensors (in supported_quantization), whose int8 GEMM on ROCm is
    // AITER's or Triton's (_POSSIBLE_INT8_KERNELS, quantization/kernels/scaled_mm/__init__.py @03fad5d4).
    int8: {
      targets: ['gfx90a', 'gfx942', 'gfx950'],
      why: 'int8 W8A8 (compressed-tensors) through AITER or Triton on gfx90a, gfx942 and gfx950',
      searched: false, // timed as CUTLASS W8A8: not offered where the real kernels differ
    },
  },
  // An fp8 KV cache (--kv-cache-dtype): FlashAttention reads fp8 KV only as FA3 on Hopper
  // (vllm/attention/utils/fa_utils.py flash_attn_supports_fp8: version 3 and capability family 90); elsewhere vLLM
  // picks its FlashInfer or Triton backend, which store fp8, fp8_e4m3 and fp8_e5m2 (vllm/v1/attention/backends/
  // flashinfer.py supported_kv_cache_dtypes); below 8.9 the cast is done in software, tested on Volta/Ampere
  // (https://github.com/vllm-project/vllm/pull/2279), and E5M2 needs no scales, so the launcher writes fp8_e5m2 there.
  // A model with attention sinks (gpt-oss) keeps the fp8 cache: FlashAttentionBackend refuses sinks only below
  // compute capability 9.0 (supports_combination) and on Hopper passes the sinks as s_aux beside the FP8 q/k/v
  // descales (FlashAttentionImpl.forward, vllm/v1/attention/backends/flash_attn.py
  // @5704f34f361c6c59a9c092c4e1e96730cc6dc14d); elsewhere TritonAttentionBackend takes sinks and fp8, fp8_e4m3 and
  // fp8_e5m2 (supports_sink, supported_kv_cache_dtypes, triton_attn.py @63013883d93ca538eab430b4f5242916b878f618).
  // FA3's first-request failure of vllm-project/vllm#23832 (v0.10.1) is gone by vllm-project/vllm#24916 and
  // vllm-project/vllm#33695, which time gpt-oss with --kv-cache-dtype fp8 on H100s.
  kvFp8: { cc: 8.0, native: 'fp8', below: 'fp8_e5m2' },
};
