/**
 * Which GPUs each serving engine has kernels for, by weight format (compute capability, CUDA): the planner's
 * hardware gate and `estimate --gpu` refuse a format the engine cannot run on the card, with one line naming
 * the engine and what it runs there.
 */
import type { Engine } from '../../schema/engine.js';
import type { KvCacheDtype, WeightDtype } from '../../schema/estimate.js';

type Needs = Partial<Record<WeightDtype, { cc: number; why: string }>>;

// vLLM 0.33: FP8 W8A8 needs 8.9+, Ampere (8.0+) runs FP8 weight-only through Marlin
// (https://docs.vllm.ai/en/latest/features/quantization/fp8.html); MXFP4/NVFP4 run natively on Blackwell and
// through the FP4 Marlin kernels from 8.0 (vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py);
// AWQ/GPTQ Marlin needs 8.0, the plain AWQ/GPTQ kernels 7.5; bitsandbytes 7.0.
const VLLM_NEEDS: Needs = {
  fp8: { cc: 8.0, why: 'FP8 W8A8 on 8.9+, FP8 Marlin (weight-only) on 8.0+' },
  mxfp4: { cc: 8.0, why: 'MXFP4 on Blackwell, FP4 Marlin on 8.0+' },
  nvfp4: { cc: 8.0, why: 'NVFP4 on Blackwell, FP4 Marlin on 8.0+' },
  int4: { cc: 7.5, why: 'AWQ/GPTQ Marlin on 8.0+, AWQ/GPTQ kernels on 7.5' },
  int8: { cc: 7.5, why: 'int8 W8A8 CUTLASS on 7.5+' },
  nf4: { cc: 7.0, why: 'bitsandbytes on 7.0+' },
};
// SGLang 0.5: FP8 W8A8 (sgl-kernel fp8 GEMMs, 8.9+); MXFP4 through triton_kernels on Hopper or natively on
// Blackwell (gpt-oss support, 9.0+); NVFP4 (ModelOpt FP4) on Blackwell only (python/sglang/srt/layers/quantization/).
const SGLANG_NEEDS: Needs = {
  fp8: { cc: 8.9, why: 'FP8 W8A8 on 8.9+' },
  mxfp4: { cc: 9.0, why: 'MXFP4 on Hopper (triton kernels) and Blackwell' },
  nvfp4: { cc: 10.0, why: 'NVFP4 on Blackwell' },
  int4: { cc: 8.0, why: 'AWQ/GPTQ Marlin on 8.0+' },
  int8: { cc: 8.0, why: 'int8 W8A8 on 8.0+' },
};

const NEEDS: Partial<Record<Engine, Needs>> = { vllm: VLLM_NEEDS, sglang: SGLANG_NEEDS };

// Where each table comes from, cited by a refusal.
const NEEDS_SOURCE: Partial<Record<Engine, string>> = {
  vllm: 'https://github.com/vllm-project/vllm/blob/5ee0c1f91ca310f2c3abef3c64dbf52bb6df0ab9/docs/features/quantization/supported_hardware.md',
  sglang:
    'https://github.com/sgl-project/sglang/tree/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt/layers/quantization',
};

// ROCm (gfx targets). vLLM's supported-hardware table lists FP8 W8A8 on AMD GPUs (and none of AWQ, GPTQ,
// Marlin, INT8 W8A8, bitsandbytes there). FP8 matrix instructions arrived with CDNA 3 (gfx942, whose FP8 is
// e4m3fnuz: vllm/platforms/rocm.py is_fp8_fnuz) and continue on gfx950; CDNA 2 (gfx90a) has none.
const VLLM_ROCM: Partial<Record<WeightDtype, { targets: readonly string[]; why: string }>> = {
  fp8: { targets: ['gfx942', 'gfx950'], why: 'FP8 W8A8 on MI300-class GPUs (gfx942, gfx950)' },
};
const ROCM: Partial<Record<Engine, typeof VLLM_ROCM>> = { vllm: VLLM_ROCM };
const isRocm = (cc: string | null | undefined): boolean =>
  typeof cc === 'string' && cc.startsWith('gfx');

/** Compute capability as a number (null: not CUDA). */
export const ccOf = (cc: string | null | undefined): number => (cc ? Number(cc) : 0);

/** The least compute capability `engine` needs for `weights` (0: none). */
export function minComputeCapability(engine: Engine, weights: WeightDtype): number {
  return NEEDS[engine]?.[weights]?.cc ?? 0;
}

/** Why `engine` cannot run `weights` on a GPU of compute capability `cc`, or null. */
export function kernelRefusal(
  engine: Engine,
  weights: WeightDtype,
  cc: string | null | undefined,
): string | null {
  const need = NEEDS[engine]?.[weights];
  if (!need) return null;
  const source = NEEDS_SOURCE[engine];
  const rocm = ROCM[engine];
  if (isRocm(cc) && rocm) {
    const on = rocm[weights];
    if (on?.targets.includes(cc!)) return null;
    const runs = Object.values(rocm).map((r) => r.why);
    return `${engine} has no ${weights} kernel for ${cc} (on AMD GPUs it runs ${runs.join(', ')}; ${source})`;
  }
  if (ccOf(cc) >= need.cc) return null;
  return `${engine} has no ${weights} kernel for compute capability ${cc ?? 'none (not CUDA)'} (it runs ${need.why}; ${source})`;
}

// An fp8 KV cache (--kv-cache-dtype). vLLM: FlashAttention reads fp8 KV only as FA3 on Hopper
// (vllm/attention/utils/fa_utils.py flash_attn_supports_fp8: version 3 and capability family 90); elsewhere vLLM
// picks its FlashInfer or Triton backend, which store fp8, fp8_e4m3 and fp8_e5m2 (vllm/v1/attention/backends/
// flashinfer.py supported_kv_cache_dtypes); below 8.9 the cast is done in software, tested on Volta/Ampere
// (https://github.com/vllm-project/vllm/pull/2279), and E5M2 needs no scales, so the launcher writes fp8_e5m2 there.
// SGLang: fp8_e4m3 on GPUs with native FP8 only (8.9+; https://docs.sglang.io/advanced_features/quantized_kv_cache.html:
// "not all attention backends support quantized KV cache").
const KV_FP8: Partial<Record<Engine, { cc: number; native: string; below: string }>> = {
  vllm: { cc: 8.0, native: 'fp8', below: 'fp8_e5m2' },
  sglang: { cc: 8.9, native: 'fp8_e4m3', below: 'fp8_e4m3' },
};
const NATIVE_FP8_CC = 8.9; // Ada, Hopper, Blackwell convert FP8 in hardware (vLLM fp8.md: "compute capability >= 8.9")

/** The engines the planner searches an fp8 KV cache on (vLLM, SGLang). */
export const searchesFp8Kv = (engine: Engine): boolean => KV_FP8[engine] !== undefined;

/** The least compute capability `engine` needs for a KV cache of `kv` (0: none; Infinity: not searched there). */
export function minKvCapability(engine: Engine, kv: KvCacheDtype | undefined): number {
  if (kv !== 'fp8') return 0;
  return KV_FP8[engine]?.cc ?? Infinity;
}

/** The engine's --kv-cache-dtype value for an fp8 KV cache on a GPU of compute capability `cc`. */
export function fp8KvFlag(engine: Engine, cc: string | null | undefined): string {
  const k = KV_FP8[engine];
  if (!k) return 'fp8';
  return ccOf(cc) >= NATIVE_FP8_CC ? k.native : k.below;
}
