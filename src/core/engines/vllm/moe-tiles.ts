/**
 * Whether a vLLM run's block-FP8 routed experts ran the Triton fused_moe on a tuned config file or on
 * `get_default_config`, and what the default tiles cost (the profile's `fusedMoeTile16.defaults.blockFp8`;
 * time/moe-default-tiles.ts).
 *
 * Which kernel runs the block-FP8 experts, read in each listed wheel's quantization/fp8.py `Fp8MoEMethod` and envs.py:
 * below compute capability 8.9 Marlin (`use_marlin`); 0.9.1 has no CUTLASS block-scaled MoE and
 * `VLLM_USE_DEEP_GEMM` defaults to "0", so the Triton fused_moe on Ada, Hopper and Blackwell; 0.9.2, 0.10.0 and 0.10.2
 * add `CutlassBlockScaledGroupedGemm` on capability 10.0 (`has_device_capability(100)` / `is_device_capability(100)`)
 * and keep DeepGEMM off by default (0.10.2's FlashInfer FP8 MoE only under VLLM_USE_FLASHINFER_MOE_FP8, default "0"),
 * so Triton on Ada and Hopper only; 0.11.0 turns `VLLM_USE_DEEP_GEMM` to "1", so on
 * Hopper and Blackwell DeepGEMM runs where the deep_gemm package is installed (not known from a release alone) and Ada
 * keeps Triton (DeepGEMM needs SM90). Even with deep_gemm installed, 0.11.0's `fused_experts` hands a call to DeepGEMM
 * only where `is_deep_gemm_e8m0_used()` (E8M0 scales: on by default on SM100, behind VLLM_USE_DEEP_GEMM_E8M0_HOPPER,
 * default "0", on SM90; vllm/utils/deep_gemm.py, envs.py) or `_valid_deep_gemm` passes, which asks for at least
 * `get_m_alignment_for_contiguous_layout()` tokens (fused_moe/deep_gemm_moe.py `_valid_deep_gemm_shape`: `align <= M`;
 * DeepGEMM's alignment "is always 128", deepseek-ai/DeepGEMM@b3473389 deep_gemm/jit_kernels/utils.py), else "we will
 * fall back to triton" (all read in the vllm 0.11.0 wheel): so on Hopper a call of fewer than 128 tokens runs the
 * Triton fused_moe whether or not deep_gemm is installed. The 0.8.5 wheel has neither DeepGEMM on by default
 * (`VLLM_USE_DEEP_GEMM` "0") nor a CUTLASS block-scaled MoE: `Fp8MoEMethod.apply` calls `fused_experts`, the Triton
 * fused_moe on every CUDA card. On ROCm the same call takes AITER's `rocm_aiter_fused_experts` only where
 * `is_rocm_aiter_moe_enabled()` (VLLM_ROCM_USE_AITER, default "False", and VLLM_ROCM_USE_AITER_MOE), else the Triton
 * fused_moe (0.8.5 fused_moe.py `dispatch_fused_experts_func`, rocm_aiter_fused_moe.py), whose file name carries the
 * card's amdsmi market name (platforms/rocm.py `get_device_name`: `AMD_Instinct_MI300X` in the shipped names). Only
 * the 0.8.5 wheel's ROCm dispatch was read (ROCM_TRITON_READ). A release without a listing
 * (VLLM_BLOCK_FP8_MOE_CONFIGS) is not looked up.
 *
 * The default tiles' cost: before vllm-project/vllm#34846 (first in v0.17.0), block FP8 took 64 x 128 x 128,
 * GROUP_SIZE_M 32, 4 warps, 3 stages at every M (vllm 0.11.0 fused_moe.py `get_default_config`). Kernel timings of
 * that block-FP8 default against a tuned file, outside the scored rows: vllm-project/vllm#44830 (one H100 80GB HBM3,
 * E=512, N=128, `benchmark_moe.py`) "~25% slower than the tuned configuration" at 96-512 tokens, none at 1 token;
 * vllm-project/vllm#45142 (one H20-3e, E=512, N=256 and 128) 1.001-1.004x at 64 tokens, 1.45-1.51x at 96-512 and
 * 1.000x at 1024. The H100 figure is taken (the Hopper SXM part the rows run; the H20-3e's is larger), and the
 * H20-3e table's ends at 64 and 1024 tokens, linear between. Both tables ran after vllm-project/vllm#34846, whose
 * block-FP8 default keeps those tiles above 64 tokens and takes `BLOCK_SIZE_M` 16 at 64 and below (`GROUP_SIZE_M` 1 to
 * 16; fused_moe.py `get_default_config` as merged, read at AutoCONFIG/vllm@1b1063fa; the old tiles are
 * `old_default_config` of vllm-project/vllm@260e1c7f `benchmarks/kernels/benchmark_moe_defaults.py`): from 96 tokens
 * they time the old tiles, at 64 and below the newer decode tile. The old tiles at 64 tokens and below are timed in
 * none of them and are not priced (sgl-project/sglang#34795 times them on an H20, E=512, N=256, Triton 3.7.1,
 * against its tuned file, whose tiles have 16 rows from 1 to 512 tokens; its per-M ratios are not carried).
 */
import type { FusedMoeDefaultTiles, TunedFileTile } from '../../time/moe-grid-types.js';
import { bucketValue } from '../fused-moe-buckets.js';
import { releaseAtLeast } from '../../compare-releases.js';
import {
  VLLM_BLOCK_FP8_BLOCK_M,
  VLLM_BLOCK_FP8_BLOCK_N,
  VLLM_BLOCK_FP8_BLOCK_N_BEFORE_0_10_2,
  VLLM_BLOCK_FP8_MOE_CONFIGS,
  VLLM_BLOCK_M_RELEASES,
} from './fused-moe-configs.js';

/**
 * torch.cuda.get_device_name() of the catalog's cards (on ROCm the amdsmi market name), spaces as underscores: the
 * names the listed files carry. The
 * A800 and H800 as vLLM's own file names spell them (`E=64,N=640,device_name=NVIDIA_A800-SXM4-80GB.json` in the
 * vllm==0.10.2 wheel; `E=128,N=192,device_name=NVIDIA_H800,dtype=fp8_w8a8.json` at vllm-project/vllm@36d3567f); no
 * block-FP8 file for either in the wheels listed.
 */
const DEVICE_NAME: Readonly<Record<string, string>> = {
  'h100-sxm': 'NVIDIA_H100_80GB_HBM3',
  'h100-pcie': 'NVIDIA_H100_PCIe',
  'h200-sxm': 'NVIDIA_H200',
  h20: 'NVIDIA_H20',
  b200: 'NVIDIA_B200',
  l40s: 'NVIDIA_L40S',
  'a100-80gb-sxm': 'NVIDIA_A100-SXM4-80GB',
  'a800-80gb-sxm': 'NVIDIA_A800-SXM4-80GB',
  'h800-sxm': 'NVIDIA_H800',
  mi300x: 'AMD_Instinct_MI300X',
};

/**
 * The listed release a version names exactly ("0.9.1+main-2025-06-11" -> "0.9.1"); none for "0.11 line", others or no
 * version.
 */
function listedRelease(version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  const m = /^v?(\d+\.\d+\.\d+)/.exec(version.trim());
  return m !== null && m[1]! in VLLM_BLOCK_FP8_MOE_CONFIGS ? m[1] : undefined;
}

/** Releases of each kernel choice (module comment): 0.9.2 adds CUTLASS on SM100, 0.11.0 turns DeepGEMM on. */
const CUTLASS_SM100_FROM = ['0.9.2', '0.10.0', '0.10.2', '0.11.0'];
const DEEP_GEMM_DEFAULT_FROM = ['0.11.0'];
// DeepGEMM's contiguous-layout M alignment, "always 128" (deepseek-ai/DeepGEMM@b3473389 deep_gemm/jit_kernels/utils.py):
// vLLM 0.11.0's `_valid_deep_gemm_shape` sends a call of fewer tokens to Triton (fused_moe/deep_gemm_moe.py).
const DEEP_GEMM_MIN_TOKENS = 128;

function tritonAt(version: string | undefined, cc: number, tokens: number): boolean | undefined {
  const rel = listedRelease(version);
  if (rel === undefined || cc <= 0) return undefined;
  if (cc < 8.9) return false; // Marlin (Fp8MoEMethod.use_marlin)
  if (cc < 9) return true; // Ada: neither DeepGEMM (SM90+) nor the SM100 CUTLASS grouped GEMM
  if (DEEP_GEMM_DEFAULT_FROM.includes(rel)) {
    // Hopper without E8M0 scales: Triton below DeepGEMM's alignment; else DeepGEMM where installed (module comment).
    return cc < 10 && tokens < DEEP_GEMM_MIN_TOKENS ? true : undefined;
  }
  if (cc >= 10 && CUTLASS_SM100_FROM.includes(rel)) return false; // CutlassBlockScaledGroupedGemm
  return true;
}

/** The releases whose ROCm fused-MoE dispatch was read (module comment). */
const ROCM_TRITON_READ = ['0.8.5'];

/** On ROCm: the Triton fused_moe runs the block-FP8 experts unless AITER's MoE is on (module comment). */
function rocmTritonAt(version: string | undefined, aiter: boolean): boolean | undefined {
  const rel = listedRelease(version);
  if (rel === undefined || !ROCM_TRITON_READ.includes(rel)) return undefined;
  return !aiter;
}

function tunedAt(
  version: string | undefined,
  e: number,
  n: number,
  gpuId: string,
): boolean | undefined {
  const rel = listedRelease(version);
  const device = DEVICE_NAME[gpuId];
  if (rel === undefined || device === undefined) return undefined;
  return VLLM_BLOCK_FP8_MOE_CONFIGS[rel]!.includes(`${e},${n},${device}`);
}

/**
 * The kept form (engines/fused-moe-buckets.ts) of one field of the block-FP8 file release `version` ships for `e`
 * local experts of width `n` on `gpuId`, from `table` (a release's own differing forms first, `before` for releases
 * before 0.10.2); undefined where none is shipped or its release is not read.
 */
function keptAt(
  table: Readonly<Record<string, string>>,
  f: { version: string | undefined; e: number; n: number; gpuId: string },
  before: Readonly<Record<string, string>> = {},
): string | undefined {
  const rel = listedRelease(f.version);
  const device = DEVICE_NAME[f.gpuId];
  if (rel === undefined || device === undefined || !VLLM_BLOCK_M_RELEASES.includes(rel))
    return undefined;
  if (tunedAt(rel, f.e, f.n, f.gpuId) !== true) return undefined;
  const key = `${f.e},${f.n},${device}`;
  return (releaseAtLeast(rel, '0.10.2') ? undefined : before[key]) ?? table[key];
}

/**
 * BLOCK_SIZE_M and BLOCK_SIZE_N of the block-FP8 file release `version` ships for `e` local experts of width `n` on
 * `gpuId`, at the bucket nearest `tokens` (VLLM_BLOCK_FP8_BLOCK_M, VLLM_BLOCK_FP8_BLOCK_N); undefined where none is
 * shipped or its release is not read.
 */
function tunedTileAt(
  version: string | undefined,
  e: number,
  n: number,
  gpuId: string,
  tokens: number,
): TunedFileTile | undefined {
  const f = { version, e, n, gpuId };
  const keptM = keptAt(VLLM_BLOCK_FP8_BLOCK_M, f);
  if (keptM === undefined) return undefined;
  const keptN = keptAt(VLLM_BLOCK_FP8_BLOCK_N, f, VLLM_BLOCK_FP8_BLOCK_N_BEFORE_0_10_2);
  return {
    m: bucketValue(keptM, tokens),
    n: keptN === undefined ? undefined : bucketValue(keptN, tokens),
  };
}

// Default over tuned at 96-512 tokens: "~25% slower", vllm-project/vllm#44830 (H100 80GB HBM3, E=512, N=128); carried
// to the other cards (calibration/assumed.json).
const DEFAULT_TILE_PLATEAU = 1.25;
// (tokens, default / tuned): vllm-project/vllm#45142's ends (1.00x at 64 and 1024 tokens, H20-3e; the 64-token end
// times vllm-project/vllm#34846's 16-row decode tile, not the old tiles: module comment), the plateau between.
const SLOWDOWN: readonly (readonly [number, number])[] = [
  [64, 1],
  [96, DEFAULT_TILE_PLATEAU],
  [512, DEFAULT_TILE_PLATEAU],
  [1024, 1],
];

function slowdownAt(tokens: number): number {
  for (let i = 1; i < SLOWDOWN.length; i++) {
    const [m0, f0] = SLOWDOWN[i - 1]!;
    const [m1, f1] = SLOWDOWN[i]!;
    if (tokens > m0 && tokens < m1) return f0 + ((f1 - f0) * (tokens - m0)) / (m1 - m0);
    if (tokens === m1) return f1;
  }
  return 1;
}

/**
 * vLLM's default fused_moe tiles: block-FP8 experts only (16-bit experts' tuned files are not read for vLLM). The lookup
 * under expert parallelism names the rank's local experts (`E, _, N = w2_shape` of the local weights).
 */
export const VLLM_FUSED_MOE_DEFAULT_TILES: FusedMoeDefaultTiles = {
  blockFp8: {
    triton: tritonAt,
    rocmTriton: rocmTritonAt,
    tuned: tunedAt,
    slowdown: slowdownAt,
    localUnderEp: true,
    tile: tunedTileAt,
  },
};
