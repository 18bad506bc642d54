/** Which GPUs SGLang has kernels for (engines/kernels.ts reads it through the engine's def). */
import { GGUF_DTYPES } from '../../../schema/estimate.js';
import type { EngineKernels } from '../def.js';
import { SGLANG_VERSION } from './version.js';
import { SGLANG_MXFP4_MARLIN_FROM, SGLANG_MXFP4_MARLIN_REFUSAL } from './mxfp4-runner.js';
import type { RocmKernelNames } from '../../../schema/time.js';

/**
 * SGLang 0.5.23 (the PyPI wheel's python/sglang/srt/layers/quantization/), each format's get_min_capability:
 * FP8 80 (fp8.py; on 8.0-8.8 weight-only FP8 Marlin: fp8_utils.py can_auto_enable_marlin_fp8), MXFP4 80
 * (mxfp4.py; triton kernels below Hopper, Marlin from SM90: mxfp4-runner.ts), NVFP4 80 (modelopt_quant.py ModelOptFp4Config), AWQ/GPTQ
 * Marlin 80 with the plain AWQ kernel from 75 (awq/awq.py AWQConfig: "only supports Turing or newer") and plain
 * GPTQ from 60 (gptq/gptq.py GPTQConfig), int8 W8A8 80 as the compressed-tensors checkpoints carry it
 * (compressed_tensors_w8a8_int8.py; SGLang's own w8a8_int8 format 75), bitsandbytes 70 (bitsandbytes.py).
 * On ROCm: FP8 through fp8_hip.py (e4m3fnuz on gfx942), MXFP4 on gfx950 only (mxfp4.py raises "not support mxfp4
 * computation" on other gfx targets), NVFP4 checkpoints converted to the Petit kernels on gfx90a and gfx942
 * (petit.py is_petit_nvfp4_compatible).
 */
const SGLANG_WHEEL = `https://pypi.org/project/sglang/${SGLANG_VERSION}/ wheel`;

/** The wheel's own refusal of a quantization method missing from its ROCm list (configs/model_config.py). */
const rocmUnlisted = (method: string): string =>
  `its ROCm list (rocm_supported_quantization: awq, fp8, compressed-tensors, w8a8_fp8, petit_nvfp4, quark, mxfp4, mxfp8, auto-round and quark variants) has no ${method}, and _verify_quantization raises ValueError(f"{self.quantization} quantization is currently not supported in ROCm.") (${SGLANG_WHEEL}, sglang/srt/configs/model_config.py:2002-2016, 2156-2160)`;

/**
 * What SGLang runs on AMD GPUs in place of the CUDA families (FrameworkProfile.rocmKernelNames), named in estimates
 * and plans; the time model prices the family (ROCm's FP8 W8A8 through time/decode.ts KERNELS.cutlass.rocm).
 */
export const SGLANG_ROCM_KERNEL_NAMES: RocmKernelNames = {
  // cutlass_fp8_supported is False off CUDA, so apply_fp8_linear runs torch._scaled_mm, i.e. hipBLASLt; with
  // SGLANG_USE_AITER=1 (its ROCm image) per-channel weights go to AITER's gemm_a8w8_bpreshuffle where it takes the
  // shape, per-tensor ones stay on torch._scaled_mm (https://pypi.org/project/sglang/0.5.23/ wheel,
  // sglang/srt/layers/quantization/fp8_utils.py:397-406, 2699-2766).
  fp8: { cutlass: 'hipblaslt' },
  // AWQ's dense layers: awq_dequantize_triton, then the matmul (the int4 row below).
  int4: { awq: 'triton-awq' },
  // MXFP4 MoE through AITER on gfx950 (the mxfp4 row below).
  mxfp4: { marlin: 'aiter' },
  // NVFP4 through Petit (the nvfp4 row below).
  nvfp4: { marlin: 'petit' },
};

export const SGLANG_KERNELS: EngineKernels = {
  needs: {
    fp8: { cc: 8.0, why: 'FP8 W8A8 on 8.9+, FP8 Marlin (weight-only) on 8.0+' },
    mxfp4: {
      cc: 8.0,
      why: 'MXFP4 natively on Blackwell, through Marlin from 9.0 and triton kernels from 8.0',
      // Its MXFP4 Marlin MoE runs on SM90, SM100 and SM120 only (engines/sglang/mxfp4-runner.ts).
      refusedBelow: {
        marlin: { cc: SGLANG_MXFP4_MARLIN_FROM, says: SGLANG_MXFP4_MARLIN_REFUSAL },
      },
    },
    nvfp4: { cc: 8.0, why: 'NVFP4 natively on Blackwell, through FP4 Marlin from 8.0' },
    int4: { cc: 7.5, why: 'AWQ/GPTQ Marlin on 8.0+, the plain AWQ/GPTQ kernels on 7.5' },
    int8: { cc: 8.0, why: 'int8 W8A8 (compressed-tensors) on 8.0+' },
    nf4: { cc: 7.0, why: 'bitsandbytes on 7.0+' },
    fp4: { cc: 7.0, why: 'bitsandbytes on 7.0+' },
    // GGUF: GGUFConfig.get_min_capability 60; its matmuls are sgl_kernel's ggml ops, imported on CUDA (and MUSA)
    // only: on HIP GGUFConfig warns "Only CUDA and MUSA support GGUF quantization currently" and
    // fused_mul_mat_gguf calls names never imported (0.5.23 wheel, layers/quantization/gguf.py:47-76, 97, 209-238),
    // so the `rocm` rows below refuse it on AMD GPUs, quoting the ROCm list it is missing from.
    ...Object.fromEntries(
      GGUF_DTYPES.map((w) => [
        w,
        { cc: 6.0, why: "GGUF through sgl_kernel's ggml kernels on CUDA 6.0+" },
      ]),
    ),
  },
  source: `https://github.com/sgl-project/sglang/tree/v${SGLANG_VERSION}/python/sglang/srt/layers/quantization`,
  // Below 7.5 the 0.5.23 wheel's load_model_utils.py raises "SGLang only supports sm75 and above."; the
  // sglang-kernel==0.4.10 it requires ships common_ops cubins for sm_80/89/90/100/120 and no PTX (the wheel's
  // sm90/ and sm100/common_ops.abi3.so fatbins), so on 7.5 its rmsnorm has no kernel image and no fallback
  // (sgl-project/sglang#38515, RTX 2080 Ti; #24302).
  floor: {
    cc: 8.0,
    why: 'its kernels (sglang-kernel 0.4.10) are built for sm_80 and newer, and it raises "SGLang only supports sm75 and above." below 7.5',
    source:
      'https://pypi.org/project/sglang/0.5.23/ (wheel) sglang/srt/model_executor/model_runner_components/load_model_utils.py:91; https://pypi.org/project/sglang-kernel/0.4.10/; https://github.com/sgl-project/sglang/issues/38515',
  },
  // ROCm (gfx targets). SGLang's AMD guide serves deepseek-ai/DeepSeek-V3 (an FP8 checkpoint) over --tp 8 on MI300X
  // (docs/platforms/amd_gpu.md @58f3bd86e589e72dee5b1005eafae7c4b0ac1c47), and its ROCm image is built for gfx942
  // (mi30x) and gfx950 (mi35x), with AITER's MXFP4 MoE switched on for gfx950 only (AITER_MXFP4_MOE_SF=1;
  // docker/rocm.Dockerfile @29ede2bec1703edd24096f036cc202f31f22ad35). AWQ/GPTQ and INT8 are not listed there.
  rocm: {
    fp8: { targets: ['gfx942', 'gfx950'], why: 'FP8 W8A8 on MI300-class GPUs (gfx942, gfx950)' },
    mxfp4: {
      targets: ['gfx950'],
      why: 'MXFP4 MoE through AITER on MI355X (gfx950)',
      // The 0.5.23 wheel's Mxfp4Config.from_config on HIP without gfx95x support.
      elsewhere:
        'its Mxfp4Config.from_config raises ValueError(f"Current platform {platform} not support mxfp4 computation") on every HIP target but gfx950 (https://pypi.org/project/sglang/0.5.23/ wheel, sglang/srt/layers/quantization/mxfp4.py:324-333)',
    },
    // The 0.5.23 wheel converts ModelOpt NVFP4 checkpoints to the Petit kernels on ROCm (petit.py
    // is_petit_nvfp4_compatible; get_min_capability: "Petit supports the gfx90a and gfx942 GPUs").
    // AWQ int4 dense layers: on HIP the 0.5.23 wheel dequantizes through its Triton kernel and multiplies
    // (hardware_backend/gpu/quantization/awq_kernels.py: is_hip() -> awq_dequantize_triton; AWQLinearKernel.apply);
    // its AWQ MoE path is Marlin, which HIP lacks (awq/awq.py: "HIP does not support fused_marlin_moe").
    int4: {
      targets: ['gfx942', 'gfx950'],
      why: 'AWQ int4 dense layers through a Triton dequantize on gfx942 and gfx950',
      searched: false, // no ROCm AWQ measurement: not offered by the search
      refusedFormats: { gptq: rocmUnlisted('gptq') },
    },
    nvfp4: {
      targets: ['gfx90a', 'gfx942'],
      why: 'NVFP4 through Petit on gfx90a and gfx942',
      searched: false, // timed weight-only with no Petit measurement: not offered by the search
      elsewhere: `on HIP it converts every ModelOpt checkpoint to Petit (is_petit_nvfp4_compatible: "return _is_hip and quant_method == 'modelopt'"), whose kernels it states for two targets ("Petit supports the gfx90a and gfx942 GPUs") (${SGLANG_WHEEL}, sglang/srt/layers/quantization/petit.py:62-64, 107-110)`,
    },
    // bitsandbytes and SGLang's own w8a8_int8 are not in the wheel's ROCm list; an int8 compressed-tensors
    // checkpoint passes that check but its scheme imports sgl_kernel's int8_scaled_mm on CUDA alone
    // (compressed_tensors_w8a8_int8.py:28-30: "if _is_cuda: from sgl_kernel import int8_scaled_mm").
    nf4: { targets: [], why: '', elsewhere: rocmUnlisted('bitsandbytes') },
    fp4: { targets: [], why: '', elsewhere: rocmUnlisted('bitsandbytes') },
    int8: {
      targets: [],
      why: '',
      elsewhere: `${rocmUnlisted('w8a8_int8')}; an int8 compressed-tensors checkpoint's scheme imports its int8_scaled_mm on CUDA alone ("if _is_cuda: from sgl_kernel import int8_scaled_mm", sglang/srt/layers/quantization/compressed_tensors/schemes/compressed_tensors_w8a8_int8.py:28-30)`,
    },
    // A GGUF file sets quantization "gguf" (arg_groups/overrides.py:1663-1666, check_gguf_file), which the ROCm list
    // lacks; GGUFConfig itself warns "Only CUDA, MUSA and NPU support GGUF quantization currently" on HIP.
    ...Object.fromEntries(
      GGUF_DTYPES.map((w) => [
        w,
        {
          targets: [],
          why: '',
          elsewhere: `a GGUF file sets quantization "gguf" (${SGLANG_WHEEL}, sglang/srt/arg_groups/overrides.py:1663-1666), and ${rocmUnlisted('gguf')}`,
        },
      ]),
    ),
  },
  // fp8_e4m3 KV on GPUs with native FP8 only (8.9+; https://docs.sglang.io/advanced_features/quantized_kv_cache.html:
  // "not all attention backends support quantized KV cache").
  kvFp8: { cc: 8.9, native: 'fp8_e4m3', below: 'fp8_e4m3' },
};
