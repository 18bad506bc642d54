/**
 * Decode linears on an AMD GPU that the engine hands to the vendor BLAS library (FrameworkProfile.rocmLibraryGemm).
 * A serving engine on ROCm runs a decode linear through its own skinny kernels only at the few batch rows they take
 * (and, for some, only without a bias); every other one goes to hipBLASLt, whose call at decode M costs a fixed time
 * beyond its weight bytes that the modelled graph-kernel gap (engines/graph-kernel.ts) does not cover. Such a linear
 * takes the library's time (the fixed cost plus its bytes at the library's read share of the stream rate) where that
 * exceeds the longer of its modelled bytes and FLOPs and its kernel gap; the extra fades as the batch makes the GEMM
 * compute-bound. The linears are the decoder layers' non-expert GEMMs after TP and the engine's fusions, the MoE
 * router (16-bit in every checkpoint) and the 16-bit LM head; routed experts run in the engine's MoE call, and
 * block-scaled FP8 and sub-8-bit weights run other kernels (not counted here).
 */
import type { Arch } from '../model/arch.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import {
  absorbDequantSeconds,
  blockFp8Gemms,
  blockFp8Seconds,
  isBlockScaledFp8,
} from './block-fp8.js';
import { rocmGfx, type GpuRates } from './hardware.js';
import type { QuantFormat } from '../../schema/time.js';
import { graphKernelSecondsOf } from './decode-host.js';

/** Whether the step's weights run the engine's 16-bit or per-tensor FP8 linears (others run other kernels). */
function libraryDtype(arch: Arch, o: EstimateOptions): '16' | 'fp8' | null {
  if (o.weights === 'bf16' || o.weights === 'fp16' || o.weights === 'mxfp4') return '16';
  if (o.weights === 'fp8' && !isBlockScaledFp8(arch)) return 'fp8';
  return null;
}

/**
 * Seconds a decode step of `rows` batch rows adds for the linears the engine hands to the BLAS library on ROCm.
 * `eff8`: the share of the stream rate the model reads FP8 linears at on this card (KernelFamily.rocm). Each call's
 * modelled kernel gap (decode-host.ts graphKernelSecondsOf) is already in the step.
 */
export function rocmLibraryGemmSeconds(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  r: GpuRates,
  rows: number,
  eff8: number,
): number {
  const gap = graphKernelSecondsOf(fw, r.smClock);
  const lib = fw.rocmLibraryGemm;
  const dtype = libraryDtype(arch, o);
  if (!r.rocm || lib === undefined || dtype === null) return 0;
  const extra = (k: number, n: number, count: number, wide: boolean, bias: boolean): number => {
    const skinny = wide ? lib.skinnyRows16 : lib.skinnyRowsFp8;
    if (!bias && rows <= skinny) return 0;
    const bytes = k * n * (wide ? 2 : 1);
    const bytesT = bytes / (r.mem * (wide ? 1 : eff8));
    const flopsT = (2 * rows * k * n) / (wide ? r.gemm16 : (r.gemm8 ?? r.gemm16));
    const libraryT = lib.floorSeconds + bytes / (r.mem * lib.readShare);
    return count * Math.max(0, libraryT - Math.max(bytesT, flopsT) - gap);
  };
  // The router stays 16-bit in an FP8 checkpoint; an MXFP4 one's non-expert linears are 16-bit.
  let total = 0;
  for (const g of blockFp8Gemms(arch, o.tp, true))
    total += extra(g.k, g.n, g.count, dtype === '16' || g.router === true, g.bias);
  // The LM head: 16-bit, split over the TP ranks, no bias.
  if (arch.kind !== 'encoder') total += extra(arch.hidden, arch.vocab / o.tp, 1, true, false);
  return total;
}

/**
 * Seconds a decode step's linears add where their kernels at decode M outlast their bytes and FLOPs: block-scaled FP8
 * GEMMs (block-fp8.ts), MLA's kv_b widened to 16 bits in every step where the engine does so on ROCm
 * (block-fp8.ts absorbDequantSeconds) and the linears the engine hands to the BLAS library on ROCm
 * (rocmLibraryGemmSeconds).
 * `eff8`: the FP8 W8A8 family's read share on CUDA and on ROCm (time/decode.ts KERNELS.cutlass); `experts`: the
 * routed experts the step runs (block-fp8.ts blockFp8Seconds); `version`: the engine build's release (TimeOptions.engineVersion).
 */
export function linearKernelSeconds(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  r: GpuRates,
  step: { q: QuantFormat | null; rate: number },
  eff8: readonly [cuda: number, rocm: number],
  experts?: number,
  version?: string,
): number {
  const block = blockFp8Seconds(arch, o, fw, {
    w8a8: step.q === 'cutlass',
    cc: r.cc,
    gfx: r.rocm ? r.gfx : undefined,
    readRate: r.mem * (r.rocm ? eff8[1] : eff8[0]),
    flopRate: step.rate,
    ...(experts !== undefined ? { experts } : {}),
    version, // the build's release (block-fp8.ts blockFp8LinearFigures)
  });
  const dequant = absorbDequantSeconds(arch, o, fw, {
    w8a8: step.q === 'cutlass',
    gfx: rocmGfx(r),
    mem: r.mem,
    gap: graphKernelSecondsOf(fw, r.smClock),
  });
  return block + dequant + rocmLibraryGemmSeconds(arch, o, fw, r, o.batch, eff8[1]);
}
