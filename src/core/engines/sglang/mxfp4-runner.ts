/**
 * The MoE runner SGLang 0.5.23 runs an MXFP4 checkpoint's routed experts (gpt-oss) through on a CUDA card, by compute
 * capability (https://pypi.org/project/sglang/0.5.23/ wheel):
 * - `--moe-runner-backend auto` (the default): arg_groups/model_overrides/gpt_oss.py `_gpt_oss_overrides` sets
 *   flashinfer_mxfp4 on SM100 (TensorRT-LLM-gen) and SM120 (FlashInfer CUTLASS), and elsewhere triton_kernel
 *   (triton_kernels' `matmul`, matmul_ogs before Triton 3.8) where `ep_size == 1` and `triton_kernels` imports,
 *   which it does from the wheel's own requirement: sglang-kernel==0.4.10 ships the top-level `triton_kernels`
 *   package (https://pypi.org/project/sglang-kernel/0.4.10/ wheel, triton_kernels/matmul.py). Below Hopper
 *   layers/quantization/mxfp4.py `_swizzle_mxfp4` lays the weights out for it (lines 270-273) and
 *   layers/moe/fused_moe_triton/triton_kernels_moe.py runs both expert GEMMs through it (lines 178-194).
 * - `--moe-runner-backend marlin`: layers/quantization/mxfp4.py `Mxfp4MoEMethod.process_weights_after_loading`
 *   raises RuntimeError("MXFP4 Marlin requires SM90+.") unless `is_sm90`, `is_sm100` or `is_sm120`
 *   (utils/common.py: capability majors 9, 10 and 12).
 * - `--ep-size` above 1 with `auto` below SM100: gpt_oss.py sets no runner (triton_kernel only at `ep_size == 1`), so
 *   `Mxfp4MoEMethod.process_weights_after_loading` takes neither Marlin, DeepGEMM, triton_kernels nor the CPU/XPU
 *   branches and falls to its final `else` (mxfp4.py:1115-1131): `upcast_from_mxfp(..., target_dtype=torch.bfloat16)`
 *   on w13 and w2, the MXFP4 tensors and scales deleted; `create_moe_runner` then resolves `auto` to
 *   MoeRunnerBackend.TRITON (mxfp4.py:1443-1450), the Triton fused_moe over BF16 weights. The GPU holds the routed
 *   experts at 2 bytes a value, not 4.25 bits (FrameworkProfile.mxfp4UpcastExperts; time/mxfp4-upcast.ts).
 * - Marlin under `--ep-size`: `_apply_marlin` passes the dispatcher's `local_expert_mapping` as Marlin's
 *   `expert_map` (mxfp4_marlin_moe.py `build_marlin_moe_quant_info`), no EP check refuses it: MXFP4 stays MXFP4.
 * vramplan's launch writes `--moe-runner-backend marlin` on 9.x, where the estimate times Marlin
 * (time/mxfp4-pad.ts mxfp4Path), and leaves the runner to SGLang elsewhere.
 */
import type { CudaKernelNames } from '../../../schema/time.js';
import { SGLANG_VERSION } from './version.js';

const WHEEL = `https://pypi.org/project/sglang/${SGLANG_VERSION}/ wheel`;

/** What SGLang runs for gpt-oss's MXFP4 experts on one compute-capability major: its default, and Marlin's check. */
export interface SglangMxfp4Runner {
  /** The runner `--moe-runner-backend auto` resolves to at `--ep-size 1` (gpt_oss.py `_gpt_oss_overrides`). */
  auto: 'triton_kernel' | 'flashinfer_mxfp4';
  /** `--moe-runner-backend marlin` loads (mxfp4.py: is_sm90, is_sm100 or is_sm120). */
  marlin: boolean;
  /**
   * What `auto` does at `--ep-size` above 1: flashinfer_mxfp4 (gpt_oss.py sets it whatever the EP size), or
   * `upcast`: no runner set, the experts upcast to BF16 at load and run the Triton fused_moe (mxfp4.py:1115-1131).
   */
  autoUnderEp: 'flashinfer_mxfp4' | 'upcast';
}

/**
 * By compute-capability major (sglang 0.5.23 wheel: gpt_oss.py:64-121, mxfp4.py:650-655, utils/common.py:297-337).
 * 11.x is not tabled: neither SM100 nor SM120, so Marlin is refused and `auto` resolves by the NVIDIA driver
 * (triton below 595, triton_kernel from it).
 */
export const SGLANG_MXFP4_RUNNERS: Readonly<Record<number, SglangMxfp4Runner>> = {
  8: { auto: 'triton_kernel', marlin: false, autoUnderEp: 'upcast' },
  9: { auto: 'triton_kernel', marlin: true, autoUnderEp: 'upcast' },
  10: { auto: 'flashinfer_mxfp4', marlin: true, autoUnderEp: 'flashinfer_mxfp4' },
  12: { auto: 'flashinfer_mxfp4', marlin: true, autoUnderEp: 'flashinfer_mxfp4' },
};

/** The runner row for a CUDA card of compute capability `cc`, or null where the table does not say. */
export const sglangMxfp4Runner = (cc: number): SglangMxfp4Runner | null =>
  SGLANG_MXFP4_RUNNERS[Math.floor(cc)] ?? null;

/** The least compute capability SGLang runs `--moe-runner-backend marlin` on for MXFP4 experts (9.0). */
export const SGLANG_MXFP4_MARLIN_FROM = Math.min(
  ...Object.entries(SGLANG_MXFP4_RUNNERS)
    .filter(([, r]) => r.marlin)
    .map(([major]) => Number(major)),
);

/** SGLang's refusal of MXFP4 Marlin below that, quoted with its file and lines at the pinned release. */
export const SGLANG_MXFP4_MARLIN_REFUSAL = `SGLang's Mxfp4MoEMethod.process_weights_after_loading raises RuntimeError("MXFP4 Marlin requires SM90+.") off SM90, SM100 and SM120, and runs triton_kernels' matmul (moe_runner_backend triton_kernel) there by default (${WHEEL}, sglang/srt/layers/quantization/mxfp4.py:650-655, sglang/srt/arg_groups/model_overrides/gpt_oss.py:64-121)`;

/**
 * What SGLang runs in place of the Marlin family below SM90, as estimates and plans name it (FrameworkProfile
 * cudaKernelNames): triton_kernels' matmul, the `triton` kernel name (schema/time.ts ROCM_KERNELS). Timed as the
 * family it stands in for: the same 4.25-bit expert read, upcast to BF16 in registers before a 16-bit MMA
 * (docs/assumptions.md).
 */
export const SGLANG_CUDA_KERNEL_NAMES: CudaKernelNames = {
  mxfp4: { marlin: { below: SGLANG_MXFP4_MARLIN_FROM, name: 'triton' } },
};

/**
 * Whether vramplan's launch asks SGLang for the Marlin MoE on a CUDA card of compute capability `cc`: where the estimate
 * times Marlin (below 10.0: time/mxfp4-pad.ts mxfp4Path), SGLang's default is another runner and Marlin loads (9.x).
 */
export function sglangLaunchesMxfp4Marlin(cc: number): boolean {
  const r = sglangMxfp4Runner(cc);
  return cc < 10 && r !== null && r.marlin && r.auto !== 'flashinfer_mxfp4';
}

/**
 * Whether SGLang holds gpt-oss's MXFP4 experts upcast to BF16 on a CUDA card of compute capability `cc` at expert
 * parallelism `ep`, under the runner vramplan's launch writes (FrameworkProfile.mxfp4UpcastExperts): `auto` above EP 1
 * where the table says `upcast`, never where launch asks for Marlin (which takes EP: note above).
 */
export function sglangUpcastsMxfp4Experts(cc: number, ep: number): boolean {
  if (ep <= 1 || sglangLaunchesMxfp4Marlin(cc)) return false;
  return sglangMxfp4Runner(cc)?.autoUnderEp === 'upcast';
}
