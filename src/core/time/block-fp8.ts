/**
 * Block-scaled FP8 linears at decode (DeepSeek-V3/R1, Qwen3 FP8: quantization_config.weight_block_size, 128x128
 * weight blocks, activations quantized per token group of 128). At decode M the engines' blockwise GEMMs launch one
 * tile per 128 outputs, fewer than the GPU's SMs, and each tile walks K serially: a linear takes a fixed cost and a
 * cost per 128 of K beyond its weight bytes (the engine's FrameworkProfile.blockFp8Linear, from kernel
 * benchmarks). The time stays flat while M grows until the GEMM's FLOPs take longer (sgl-project/sglang#5207's tables:
 * flat to M = 128-256), so the extra is what the kernel's time exceeds the longer of its bytes and its FLOPs by,
 * and it fades as the batch makes the GEMM compute-bound.
 *
 * The kernel figures are GEMM calls timed back to back on quantized inputs; the kernels that prepare each GEMM's
 * activations (the per-token-group quantization, vLLM's row padding) run apart from it and are counted where the
 * engine's profile gives them (FrameworkProfile.decodeFeatureKernels, a graph kernel's gap each; time/decode-host.ts).
 *
 * The routed experts run in the fused-MoE call (time/moe-call.ts) and are not counted here; the router and
 * lm_head stay 16-bit (DeepSeek-V3's and Qwen3's modules_to_not_convert), and MLA's kv_b is absorbed into
 * 16-bit bmm's at load (vLLM's MLACommonImpl.process_weights_after_loading dequantizes it): neither is counted.
 */
import { isAda, isHopper, isSm100 } from '../compute-capability.js';
import { releaseNamedBefore } from '../compare-releases.js';
import type { Arch, Linear } from '../model/arch.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { routedExperts } from '../memory/expert-parallel.js';

/** True when the checkpoint's FP8 weights are block-scaled (quantization_config.weight_block_size). */
export function isBlockScaledFp8(arch: Arch): boolean {
  return arch.quant?.method === 'fp8' && arch.quant.groupSize !== null;
}

/**
 * A block-scaled FP8 checkpoint run with its FP8 weights where the engines' blockwise W8A8 path runs: an NVIDIA GPU
 * with FP8 tensor cores (compute capability 8.9 and up). Each of its linears quantizes the activations per token group
 * of 128 before a blockwise GEMM, on every such generation: vLLM's apply_w8a8_block_fp8_linear
 * (model_executor/layers/quantization/utils/fp8_utils.py @v0.11.0: CUTLASS on SM90 and SM100, Triton elsewhere) and
 * SGLang's dispatch_w8a8_block_fp8_linear (srt/layers/quantization/fp8_utils.py @v0.5.6.post1: DeepGEMM on SM90 and
 * SM100, its scales requantized to UE8M0 on Blackwell). Below 8.9 the engines run FP8 weight-only through Marlin; AMD
 * GPUs (cc 0 here) take their own ROCm path. The scope of the activation kernels (time/decode-host.ts
 * decodeFeatureKernels); the GEMMs' figures are the generation's (blockFp8LinearFigures).
 */
export function runsBlockFp8Path(arch: Arch, o: EstimateOptions, cc: number): boolean {
  return o.weights === 'fp8' && isBlockScaledFp8(arch) && cc >= 8.9;
}

/**
 * A block-scaled FP8 checkpoint run with its FP8 weights on an AMD GPU whose gfx target the engine's decode table lists
 * (DecodeFeatureKernels.rocmBlockFp8Targets): the engine's ROCm blockwise linears quantize their activations per token
 * group before each GEMM, as the path of runsBlockFp8Path does on NVIDIA.
 */
export function runsRocmBlockFp8Quant(
  arch: Arch,
  o: EstimateOptions,
  targets: readonly string[] | undefined,
  gfx: string | undefined,
): boolean {
  return (
    o.weights === 'fp8' &&
    isBlockScaledFp8(arch) &&
    gfx !== undefined &&
    targets?.includes(gfx) === true
  );
}

/**
 * The engine's blockwise GEMM figures for the GPU generation of compute capability `cc`: Hopper's (cc 9.x), where the
 * kernels were timed (engines/<engine>/block-fp8.ts). None elsewhere, so a Blackwell GEMM is timed at its bytes: the
 * B200 tables found do not time the engines' SM100 kernels at DeepSeek's shapes as kernels (sgl-project/sglang#13528
 * reads DeepGEMM at 58-72 µs flat from a 4 MB to a 176 MB weight, host-timed; vllm-project/vllm#31185 and
 * flashinfer-ai/flashinfer#2146 time CUTLASS and FlashInfer at other shapes), and Hopper's do not carry over (the
 * SM100 kernels are other kernels: UE8M0 scales applied by the tensor cores, tcgen05). Where the engine's build
 * `version` is a release that ran a Triton blockwise kernel on SM100 (FrameworkProfile.blockFp8Linear.sm100Triton),
 * that kernel's figures: the same Triton source on either generation, a tile per 128 outputs walking K in turn.
 */
export function blockFp8LinearFigures(
  fw: FrameworkProfile,
  cc: number,
  version?: string,
): NonNullable<FrameworkProfile['blockFp8Linear']>['hopper'] | undefined {
  const k = fw.blockFp8Linear;
  if (isHopper(cc)) return k?.hopper;
  const t = k?.sm100Triton;
  if (t === undefined || version === undefined || !isSm100(cc)) return undefined;
  if (!releaseNamedBefore(version, t.before)) return undefined;
  const { sharedExpertsFused } = k!.hopper;
  return {
    baseSeconds: t.baseSeconds,
    perKBlockSeconds: t.perKBlockSeconds,
    ...(sharedExpertsFused !== undefined ? { sharedExpertsFused } : {}),
  };
}

// The engines fuse these projections into one GEMM of the summed N over the same input (vLLM's QKVParallelLinear,
// MergedColumnParallelLinear gate_up_proj and DeepSeek's fused_qkv_a_proj; SGLang alike).
const FUSED: readonly (readonly string[])[] = [
  ['q', 'k', 'v'],
  ['gate', 'up'],
  ['q_a', 'kv_a'],
];
// Row-parallel under TP: the input dimension is split (Megatron's o_proj and down_proj).
const ROW_PARALLEL = new Set(['o', 'down']);
// Replicated on every rank: DeepSeek's low-rank q_a / kv_a projections and the MoE router (vLLM's ReplicatedLinear /
// disable_tp).
const REPLICATED = new Set(['q_a', 'kv_a', 'router']);
// Not run as block-FP8 GEMMs at decode: see the note above.
const SKIPPED = new Set(['router', 'kv_b', 'other']);
// The 128-wide K block the kernels' main loop steps by: weight_block_size [128, 128]
// (https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json, catalogs/models/deepseek-v3.json).
export const K_BLOCK = 128;

/** One rank's block-FP8 GEMMs of a decoder layer: K and N after TP and the engine's fusions. */
export interface BlockGemm {
  k: number;
  n: number;
  /** Layers that run it. */
  count: number;
  /** Whether the GEMM adds a bias (any fused member's). */
  bias: boolean;
  /** The MoE router's GEMM (blockFp8Gemms with `router`). */
  router?: true;
}

// The MLP's linears: in an MoE layer, those of copies 1 are its shared expert.
const MLP = new Set(['gate', 'up', 'down']);

/**
 * The block-FP8 GEMMs a decode step runs on one rank (non-expert linears of the decoder layers); with `router`, the
 * MoE router's GEMM too (a 16-bit linear in every checkpoint, which the block-FP8 path never runs); with
 * `sharedFused`, without the MoE layers' shared expert (run inside the fused-MoE call).
 */
export function blockFp8Gemms(
  arch: Arch,
  tp: number,
  router = false,
  sharedFused = false,
): BlockGemm[] {
  const out: BlockGemm[] = [];
  const skipped = (l: Linear): boolean => SKIPPED.has(l.role) && !(router && l.role === 'router');
  for (const g of arch.groups) {
    if (g.name !== 'decoder') continue;
    const shared = (l: Linear): boolean => sharedFused && g.experts > 1 && MLP.has(l.role);
    const dense = g.linears.filter((l) => l.copies === 1 && !skipped(l) && !shared(l));
    const used = new Set<Linear>();
    for (const roles of FUSED) {
      const members = dense.filter((l) => roles.includes(l.role));
      const first = members[0];
      if (first === undefined) continue;
      // Fused members share the input; the shared expert's gate/up fuse apart from a dense MLP's only by layer.
      const n = members.reduce((a, l) => a + l.outFeatures, 0);
      const split = REPLICATED.has(first.role) ? 1 : tp;
      out.push({
        k: first.inFeatures,
        n: n / split,
        count: g.count,
        bias: members.some((l) => l.bias),
      });
      members.forEach((l) => used.add(l));
    }
    for (const l of dense) {
      if (used.has(l)) continue;
      const row = ROW_PARALLEL.has(l.role);
      const split = REPLICATED.has(l.role) ? 1 : tp;
      out.push({
        k: row ? l.inFeatures / split : l.inFeatures,
        n: row ? l.outFeatures : l.outFeatures / split,
        count: g.count,
        bias: l.bias,
        ...(l.role === 'router' ? { router: true as const } : {}),
      });
    }
  }
  return out;
}

/**
 * The engine's decode figure for this card (FrameworkProfile.blockFp8Linear): Hopper's on cc 9.x, the ROCm one on
 * the gfx targets it lists; undefined elsewhere or where the weights are not block-scaled FP8. `sharedFused`: the MoE
 * layers' shared expert runs inside the fused-MoE call (the engine's `sharedExpertsFused`), not as linears. `experts`:
 * the routed experts the step runs (1 for a DP-attention rank's dense part, time/expert-parallel.ts denseFacts; the
 * checkpoint's by default).
 */
function blockFp8Figure(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  w: { cc: number; gfx?: string | undefined; experts?: number; version?: string | undefined },
): { baseSeconds: number; perKBlockSeconds: number; sharedFused: boolean } | undefined {
  const k = fw.blockFp8Linear;
  if (k === undefined || o.weights !== 'fp8' || !isBlockScaledFp8(arch)) return undefined;
  if (runsBlockFp8Path(arch, o, w.cc)) {
    const h = blockFp8LinearFigures(fw, w.cc, w.version);
    if (h === undefined) return undefined;
    const model = {
      architecture: arch.architecture,
      routedExperts: w.experts ?? routedExperts(arch),
    };
    const sharedFused = h.sharedExpertsFused?.(model, o.ep ?? 1) ?? false;
    return { baseSeconds: h.baseSeconds, perKBlockSeconds: h.perKBlockSeconds, sharedFused };
  }
  const rocm = k.rocm;
  if (rocm === undefined || w.gfx === undefined || !rocm.targets.includes(w.gfx)) return undefined;
  return { ...rocm, sharedFused: rocm.sharedExpertsFused };
}

/**
 * Seconds a decode step of `batch` sequences spends in its block-FP8 linears beyond the longer of their bytes at
 * `readRate` (the modelled FP8 weight read, B/s) and their FLOPs at `flopRate`. Zero unless the checkpoint is
 * block-scaled, the weights run as FP8 W8A8 (`w8a8`) and the engine has a figure for this GPU (Hopper, or the
 * AMD gfx target `gfx`).
 */
export function blockFp8Seconds(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  w: {
    w8a8: boolean;
    cc: number;
    gfx?: string | undefined;
    readRate: number;
    flopRate: number;
    experts?: number;
    /** The engine build's release (TimeOptions.engineVersion): a release-bound SM100 figure. */
    version?: string | undefined;
  },
): number {
  const fig = w.w8a8 ? blockFp8Figure(arch, o, fw, w) : undefined;
  if (fig === undefined) return 0;
  const { baseSeconds, perKBlockSeconds } = fig;
  let extra = 0;
  for (const gm of blockFp8Gemms(arch, o.tp, false, fig.sharedFused)) {
    const bytesT = (gm.k * gm.n) / w.readRate;
    const flopsT = (2 * o.batch * gm.k * gm.n) / w.flopRate;
    const kernelT = baseSeconds + perKBlockSeconds * Math.ceil(gm.k / K_BLOCK) + bytesT;
    extra += gm.count * Math.max(0, kernelT - Math.max(bytesT, flopsT));
  }
  return extra;
}

/**
 * Whether AITER's kernels run on the engine's ROCm targets: the engine's default where AITER is (its `rocmPrefill`'s
 * `aiterLinearsTriton`: TimeOptions.rocmAiter unset reads as on), else only where the run switched it on.
 */
export const rocmAiterOn = (fw: FrameworkProfile, aiter: boolean | undefined): boolean =>
  fw.blockFp8Linear?.rocmPrefill?.aiterLinearsTriton === true ? aiter !== false : aiter === true;

/**
 * Seconds a decode step spends widening MLA's kv_b to 16 bits where the engine keeps it in FP8 and dequantizes it in
 * every step (FrameworkProfile.blockFp8Linear.rocm.absorbDequant, the gfx targets listed, a block-scaled FP8 checkpoint
 * run W8A8): each MLA layer's kv_b weights on this rank (column-parallel, its heads split over the attention TP) move
 * `extraBytesPerParam` more bytes at the stream rate `mem` than the step's weight read counts, and its elementwise
 * kernels cost a graph kernel's `gap` each. Zero elsewhere.
 */
export function absorbDequantSeconds(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  w: { w8a8: boolean; gfx?: string | undefined; mem: number; gap: number },
): number {
  const rocm = fw.blockFp8Linear?.rocm;
  const d = rocm?.absorbDequant;
  if (d === undefined || !w.w8a8 || o.weights !== 'fp8' || !isBlockScaledFp8(arch)) return 0;
  if (w.gfx === undefined || !rocm?.targets.includes(w.gfx)) return 0;
  let total = 0;
  for (const g of arch.groups) {
    if (g.name !== 'decoder') continue;
    const kvB = g.linears.find((l) => l.role === 'kv_b' && l.copies === 1);
    if (kvB === undefined) continue;
    const params = (kvB.inFeatures * kvB.outFeatures) / o.tp;
    total += g.count * ((params * d.extraBytesPerParam) / w.mem + d.kernels * w.gap);
  }
  return total;
}

/**
 * FLOP/s of a prefill's GEMMs on a block-scaled FP8 checkpoint run W8A8 (`q` cutlass; on AMD GPUs the family's ROCm
 * name, hipBLASLt) on Hopper, or on the AMD gfx targets of the engine's `rocmPrefill` (`gfx`) unless AITER runs them
 * (`aiter`; for an engine whose AITER linears are Triton, RocmBlockFp8Prefill.aiterLinearsTriton, the routed
 * `experts` only): `rate` (the W8A8 rate) capped
 * at the share of the 8-bit peak the engine's blockwise kernel reaches at prefill M
 * (FrameworkProfile.blockFp8Linear.hopper.peakShare8). The per-128 scales of both operands are applied in the
 * kernel's main loop, outside the tensor cores' accumulation, which holds these kernels below a per-tensor FP8 GEMM.
 * On Ada (cc 8.9) the routed experts (`part` 'experts') take the engine's `ada` share, its Triton fused MoE's (no
 * blockwise CUTLASS or DeepGEMM kernel runs below SM90); the linears keep `rate`. On Hopper the routed experts take
 * the engine's `hopper.moePeakShare8` where its MoE runner is not its blockwise linear kernel (SGLang's Triton fused MoE
 * beside DeepGEMM linears), else `peakShare8`. `rate` unchanged where the engine
 * gives no share for the card's generation (Hopper's from blockFp8LinearFigures, Ada's) or the checkpoint is not
 * block-scaled.
 * A decode step keeps the W8A8 rate: its blockwise kernels are timed by blockFp8Seconds, whose fade was measured against
 * it, and DP attention's expert share is a difference of two such steps (expert-parallel.ts expertSeconds).
 */
export function blockFp8GemmRate(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  w: { q: string | null; cc: number; peak16: number; gfx?: string | undefined; aiter?: boolean },
  rate: number,
  part: 'linears' | 'experts' = 'linears',
): number {
  // On the AMD targets the engine lists, its Triton blockwise kernels unless AITER's run them (TimeOptions.rocmAiter),
  // at their default tiles' share of a tuned kernel's ceiling (RocmBlockFp8Prefill.defaultTileShare); where the
  // engine's AITER linears are Triton too (aiterLinearsTriton), only its routed experts leave the ceiling, and only
  // with AITER on (its default there: rocmAiter unset);
  // an AMD Instinct GPU's 8-bit dense peak is twice its 16-bit one (MI300X: 2614.9 against 1307.4 TFLOPS).
  const rp = fw.blockFp8Linear?.rocmPrefill;
  if (rp !== undefined && w.gfx !== undefined && rp.targets.includes(w.gfx)) {
    const aiterOn = rocmAiterOn(fw, w.aiter);
    const tritonKernel = rp.aiterLinearsTriton === true && part === 'linears' ? true : !aiterOn;
    const triton = tritonKernel && w.q === 'cutlass' && o.weights === 'fp8';
    const share = rp.peakShare8 * (rp.defaultTileShare ?? 1);
    return triton && isBlockScaledFp8(arch) ? Math.min(rate, share * 2 * w.peak16) : rate;
  }
  // On Ada (cc 8.9) the routed experts' Triton fused MoE (FrameworkProfile.blockFp8Linear.ada); its linears keep the
  // W8A8 rate (no Ada timing of the Triton blockwise matmul). On Hopper every GEMM of the step, the routed experts at
  // their MoE runner's share where the engine gives one (hopper.moePeakShare8).
  const hopper = blockFp8LinearFigures(fw, w.cc);
  const share = isAda(w.cc)
    ? part === 'experts'
      ? fw.blockFp8Linear?.ada?.moePeakShare8
      : undefined
    : part === 'experts'
      ? (hopper?.moePeakShare8 ?? hopper?.peakShare8)
      : hopper?.peakShare8;
  if (share === undefined || w.q !== 'cutlass' || !runsBlockFp8Path(arch, o, w.cc)) return rate;
  // Hopper's and Ada's 8-bit tensor peaks are twice their 16-bit ones (H100 SXM: 1978.9 against 989.4 TFLOPS dense;
  // L40S: 733 against 362.05, its 16-bit rate with fp32 accumulation).
  return Math.min(rate, share * 2 * w.peak16);
}
