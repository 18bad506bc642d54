/**
 * The MoE kernel vLLM runs an MXFP4 checkpoint's routed experts (gpt-oss) through by default, with no engine argument
 * or environment variable naming one, on CUDA compute capability 8.x and 9.x, by PyPI release. Read in the wheels:
 *
 * - 0.10.1: `Mxfp4MoEMethod._should_use_marlin` (vllm/model_executor/layers/quantization/mxfp4.py) takes Marlin below
 *   9.0, and on 9.x unless `triton_kernels` imports and torch is 2.8 or newer; the wheel pins torch==2.7.1 and does
 *   not require triton_kernels (its METADATA), so Marlin. vllm-project/recipes@888856d9 OpenAI/GPT-OSS.md, written for
 *   0.10.1: "GPT-OSS works on Hopper devices by default, using the FlashAttention3 backend and Marlin MXFP4 MoE".
 * - 0.10.2 to 0.11.2: `get_mxfp4_backend` (same file) takes Triton (triton_kernels' `matmul_ogs`) on 9.x only where
 *   `triton_kernels` imports, which none of these wheels requires or ships (the 0.10.2, 0.11.1 and 0.11.2 METADATA
 *   pin torch 2.8.0 / 2.9.0 and list no triton_kernels; vllm-project/vllm#27370 added it to requirements/cuda.txt
 *   as a git dependency, which a PyPI wheel cannot carry): Marlin.
 * - 0.12.0 on: the wheel vendors it (vllm/third_party/triton_kernels; vllm/utils/import_utils.py `has_triton_kernels`
 *   looks for either copy) and `get_mxfp4_backend` takes Triton on 9.0 <= capability < 11.0 with torch 2.8+
 *   (0.12.0 wheel); 0.33.0's `_get_priority_backends_for_gpt_oss`
 *   (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py) keeps TRITON ahead of MARLIN there (launch.ts).
 *
 * - 12.x (RTX 5090, RTX PRO 6000, DGX Spark), read in the 0.33.0 wheel only: `_get_priority_backends_for_gpt_oss`
 *   moves TRITON behind BATCHED_MARLIN on the 120 family ("Consumer Blackwell: the OAI Triton kernels run but their
 *   99KB shared memory budget caps them at small tiles, so MARLIN prefills ~10% faster"), gpt-oss asks for BF16
 *   activations (no activation key), so `_filter_by_activation` keeps the BF16 backends, and of those ahead of Marlin
 *   FlashInfer's TensorRT-LLM MoE runs on the 100 family only (experts/trtllm_mxfp4_moe.py) and FlashInfer CUTLASS
 *   takes MXFP4 x BF16 on 9.0 only (experts/flashinfer_cutlass_moe.py `_supports_quant_scheme`): Marlin
 *   (experts/marlin_moe.py, from 7.5).
 *
 * Not tabled: the 0.10.1+gptoss preview of 2025-08-05 (wheels.vllm.ai/gpt-oss, installed beside PyTorch and Triton
 * nightlies; its kernel depends on whether triton_kernels was installed), builds from source or the Docker images
 * (not read), compute capability 10.x, and 12.x before 0.33.0.
 */
import { compareReleases } from '../../compare-releases.js';

/** A vLLM MXFP4 MoE backend by the kernel it runs: Marlin's `fused_marlin_moe` or triton_kernels' `matmul_ogs`. */
export type VllmMxfp4MoeBackend = 'marlin' | 'triton';

/** The first PyPI release whose wheel makes triton_kernels importable (vendored), with torch 2.8 or newer. */
export const VLLM_MXFP4_TRITON_FROM = '0.12.0'; // vllm-0.12.0 wheel: vllm/third_party/triton_kernels
/** The release whose 12.x choice was read (above): Marlin. */
export const VLLM_MXFP4_SM120_READ = '0.33.0'; // vllm-0.33.0 wheel: fused_moe/oracle/mxfp4.py
/** Compute capability majors from 10 on where the pinned release's MXFP4 MoE default is Marlin (FrameworkProfile). */
export const VLLM_MXFP4_MARLIN_MAJORS: readonly number[] = [12];
/** The first PyPI release that runs gpt-oss (0.10.0 has no GptOssForCausalLM). */
export const VLLM_MXFP4_FIRST = '0.10.1';

/** Numeric parts of a release ("0.11.1" -> [0, 11, 1]); null where it is not one (a local or preview tag). */
function releaseParts(v: string): number[] | null {
  if (!/^\d+(\.\d+)*$/.test(v)) return null;
  return v.split('.').map(Number);
}

/**
 * The MXFP4 MoE backend vLLM `version` picks by default on a CUDA card of compute capability `cc`; null where the
 * table above does not say (before 0.10.1, a preview or local build, 10.x, 12.x in another release than 0.33.0).
 */
export function vllmMxfp4MoeDefault(version: string, cc: number): VllmMxfp4MoeBackend | null {
  const v = releaseParts(version);
  if (v === null || compareReleases(v, releaseParts(VLLM_MXFP4_FIRST)!) < 0) return null;
  if (cc >= 8 && cc < 9) return 'marlin';
  if (cc >= 9 && cc < 10)
    return compareReleases(v, releaseParts(VLLM_MXFP4_TRITON_FROM)!) >= 0 ? 'triton' : 'marlin';
  if (cc >= 12 && cc < 13 && version === VLLM_MXFP4_SM120_READ) return 'marlin';
  return null;
}
