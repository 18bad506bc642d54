/** GPU and rig facts the time model reads: achievable compute, memory and link rates at a power limit. */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { dmmvResidency } from './matvec-tail.js';
import { socketLinkBps } from './pcie-sockets.js';
import { isSm100 } from '../compute-capability.js';
import type { Gpu } from '../../schema/gpu.js';
import { MiB } from '../units.js';
import { isGguf, type EstimateOptions } from '../../schema/estimate.js';
import {
  QUANT_FORMATS_FOR,
  type Interconnect,
  type KernelName,
  type QuantFormat,
  type TimeOptions,
} from '../../schema/time.js';

/** Capacity of a GPU as nvidia-smi reports its total (the device-level budget). */
export const gpuCapacityBytes = (gpu: Gpu): number => gpu.memoryMiB * MiB;

/** The GPU's name as the driver reports it (torch.cuda.get_device_name, nvidia-smi), else the catalog's. */
export const gpuDeviceName = (gpu: Gpu): string => gpu.nvidiaSmiNames?.[0] ?? gpu.name;

/** An AMD card's gfx target (GpuRates.gfx), which ROCm kernels it runs; undefined on NVIDIA. */
export const rocmGfx = (r: GpuRates): string | undefined => (r.rocm ? r.gfx : undefined);

/** What a memory estimate and a server's own sizing read of the GPU: its memory and the driver's name for it. */
export interface GpuContext {
  gpuCapacityBytes: number;
  gpuDeviceName: string;
}

export const gpuContext = (gpu: Gpu): GpuContext => ({
  gpuCapacityBytes: gpuCapacityBytes(gpu),
  gpuDeviceName: gpuDeviceName(gpu),
});

// ---------------------------------------------------------------------------------------------
// Options the time model reads beside the estimate contract (docs/DESIGN.md "Time").

/** The engine's usual kernel family for a quantized dtype (its memory profile, engines/<engine>/memory.ts). */
export function defaultQuantFormat(o: EstimateOptions): QuantFormat | null {
  if (!(o.weights in QUANT_FORMATS_FOR)) return null;
  const fw = FRAMEWORKS[o.framework];
  const own = fw.quantFormatFor?.[o.weights];
  if (own) return own;
  if (isGguf(o.weights)) return 'gguf';
  // fp8 / FP4 weights run through an engine's own kernels only (else timed as their bytes at full bandwidth).
  if (o.weights === 'fp8' || o.weights === 'mxfp4' || o.weights === 'nvfp4') return null;
  return o.weights === 'int4' ? fw.int4QuantFormat : fw.quantFormat;
}

/**
 * The name of the kernel a run's quantized weights go through (`q`, the family time/decode.ts kernelOn picks): on
 * AMD GPUs the engine's own kernel where it runs one in place of the family (FrameworkProfile.rocmKernelNames:
 * hipBLASLt for CUTLASS W8A8, ...), and on CUDA GPUs below a compute capability likewise
 * (FrameworkProfile.cudaKernelNames: SGLang's MXFP4 MoE below SM90); the time is still the family's.
 */
export function kernelName(
  q: QuantFormat | null,
  o: EstimateOptions,
  r: Pick<GpuRates, 'rocm' | 'cc'>,
): KernelName | null {
  if (q === null) return q;
  const fw = FRAMEWORKS[o.framework];
  if (r.rocm) return fw.rocmKernelNames?.[o.weights]?.[q] ?? q;
  const cuda = fw.cudaKernelNames?.[o.weights]?.[q];
  return cuda && r.cc > 0 && r.cc < cuda.below ? cuda.name : q;
}

// ---------------------------------------------------------------------------------------------
// Hardware facts (from catalogs/gpus), per GPU and rig.

/** Per-GPU rates the phases need, already scaled by the power limit. */
export interface GpuRates {
  /** The catalog card's id (catalogs/gpus): what an engine's per-card tables (its shipped kernel configs) are keyed by. */
  gpuId?: string;
  /** The card's memory, bytes (gpuCapacityBytes): what an engine sizes its defaults by. */
  capacityBytes?: number;
  /** Achievable dense 16-bit tensor FLOP/s on large GEMMs. */
  gemm16: number;
  /** Achievable 8-bit (FP8 W8A8) FLOP/s where measured apart from the 16-bit rate (absent: twice gemm16). */
  gemm8?: number;
  /** Achievable fp32 FLOP/s (no TF32: PyTorch's default, torch.backends.cuda.matmul.allow_tf32=False). */
  gemm32: number;
  /**
   * FLOP/s of bf16 matmuls on a card without bf16 tensor cores (cuBLAS runs them on CUDA cores: bf16Rate); absent
   * where bf16 runs at gemm16.
   */
  gemmBf16Emulated?: number;
  /** Achievable FLOP/s of fused (flash) attention. */
  attn: number;
  /**
   * Achievable FLOP/s of cuDNN's fused flash attention (PyTorch SDPA's cuDNN backend, TimeOptions.sdpaCudnn); present
   * only on a card with a sourced cuDNN rate (compute capability 9.0).
   */
  attnCudnn?: number;
  /** Achievable memory bandwidth, B/s. */
  mem: number;
  /** Dense 16-bit peak at the power limit (MFU denominator). */
  peak16: number;
  /** Collective bus bandwidth within a node for a group of 2 and of more GPUs, B/s. */
  intraPair: number;
  intraMany: number;
  /** Host link (PCIe) per GPU, B/s. */
  host: number;
  /** Whether a copy between two GPUs of a pair / of a larger group is staged through host memory (no P2P). */
  peerStaged: { pair: boolean; many: boolean };
  interNode: number;
  gpusPerNode: number;
  hopper: boolean;
  /** FP8 tensor cores (compute capability 8.9+): W8A8 GEMMs run at twice the 16-bit rate. */
  fp8: boolean;
  /** Compute capability (0: not CUDA): which kernels a serving engine picks. */
  cc: number;
  /** An AMD GPU (ROCm): the serving engines' ROCm kernels (no Marlin, no FP4 matrix cores before gfx950). */
  rocm: boolean;
  /**
   * An Apple GPU (Metal / MPS): the engine's Metal dispatch cost per decode kernel (FrameworkProfile.metalDecode), and
   * LLM.int8's matmul as bitsandbytes' pure-torch default (time/bnb-dequant.ts int8ForwardExtraSeconds).
   */
  apple?: boolean;
  /** Dense 16-bit TFLOPS: the catalog spec, and what the card sustains at its power (power wall, limit). */
  spec16: number;
  sustained16: number;
  /** llama.cpp dmmv block slots and DRAM latency (matvec-tail.ts); null where the card is not covered. */
  dmmv: { slots: number; latency: number } | null;
  /** L2 cache bytes (0 where the catalog does not give it). */
  l2Bytes?: number;
  /** SM cycles a second (SMs x clock), NVIDIA only: the issue rate a mat-vec bound by its arithmetic meets. */
  smCycles?: number;
  /** One SM's cycles a second (smCycles over the catalog's SM count), NVIDIA cards whose SM count the catalog gives
   * and whose FP32 rate gives the clock (Gpu.smClockFromFp32). */
  smClock?: number;
  /** Streaming multiprocessors (NVIDIA, where the catalog gives them): how many of a kernel's programs run at once. */
  sms?: number;
  /** CU cycles a second (CUs x clock), AMD only, and the card's gfx target: which ROCm kernels it runs. */
  cuCycles?: number;
  gfx?: string;
  /** Compute units (AMD, where the catalog gives them): how many of a kernel's programs run at once. */
  cus?: number;
  /**
   * The catalog's measured all-reduce over `ranks` GPUs of a node on its fabric (GpuInterconnect.allReduce), seconds
   * by message bytes; absent where the catalog has none or the GPUs are not joined by that fabric.
   */
  allReduce?: { ranks: number; bytes: readonly number[]; seconds: readonly number[] };
  /**
   * The inter-socket link a ring over more than one socket's PCIe cards crosses, B/s (pcie-sockets.ts); absent where
   * a ring over three or more cards runs over NVLink.
   */
  socketLink?: number;
}

// Large bf16 GEMMs of transformer shapes reach ~75-85% of the dense peak on A100 (~250 of 312 TFLOPS, NVIDIA
// "Matrix Multiplication Background", https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/);
// H100 SXM cuBLAS bf16 ~600-700 of 989 TFLOPS (clocks drop under sustained tensor load): 0.8 / 0.65.
const GEMM_EFF_AMPERE = 0.8;
const GEMM_EFF_HOPPER = 0.65;
// GeForce dies (GA10x, AD10x, GB20x) run 16-bit matmuls with fp32 accumulation at half their fp16-accumulate
// rate (the catalog's spec), so the tensor pipe binds, not memory or issue: an RTX 4060 kernel with fp32
// accumulation holds 95.7% tensor-pipe utilisation at 47% SM throughput (triton-lang/triton#10851), and
// torch bf16/fp16 matmuls of 4096-10240 reach a median 0.955 of that spec on an RTX 4090, 3070 and 5070 (18 runs,
// 0.86-1.09; https://github.com/zzc0721/torch-performance-test-data/issues/78, zzc0721/torch-performance-test-data#171,
// zzc0721/torch-performance-test-data#100), where the same harness gives an A40 0.72-0.82
// and an H100 SXM 0.73-0.81 of theirs (zzc0721/torch-performance-test-data#185, https://github.com/zzc0721/torch-performance-test-data/issues/79).
// Those are square n x n matmuls whose rate already carries the shape loss that shapeFactor (time/shape.ts) applies
// to every GEMM again (0.941 at n = 4096, 0.970 at 8192, 0.976 at 10240): each run divided by shapeFactor(n, n), the
// median of the 18 is 0.979 (0.91-1.14): 0.98 at shape factor 1.
const GEMM_EFF_GEFORCE = 0.98;
// Volta (V100 SXM2) in the same harness: fp16 tensor-core matmuls of 4096-10240 at 89-97 of 125 TFLOPS (median
// 0.76), fp32 at 13.9-14.5 of 15.7 (median 0.91) (zzc0721/torch-performance-test-data#140 and https://github.com/zzc0721/torch-performance-test-data/issues/52).
const GEMM_EFF_VOLTA_16 = 0.76;
const GEMM_EFF_VOLTA_32 = 0.91;
// ROCm hipBLASLt reaches about half of MI300X's dense peak in practice (SemiAnalysis MI300X vs H100, 2024): assumed 0.55.
const GEMM_EFF_AMD = 0.55;
// hipBLASLt's FP8 GEMM on MI300X: 907 TFLOPS at 8192 x 8192 x 8192 (hipblaslt-bench -r f8_r, hipBLASLt of February
// 2025 in the rocm/vllm 0.6.6 container; ROCm/hipBLASLt#1721), 0.35 of the 2614.9 TFLOPS FP8 spec, where the 16-bit
// rate above is 0.55 of its spec: the 8-bit GEMM gains 1.26x over 16 bits, not the datasheet's 2x. Taken for every
// AMD GPU with FP8 matrix cores (MI325X is the same gfx942 die; no gfx950 figure was found).
const FP8_GEMM_EFF_AMD = 907 / 2614.9;
// Apple MPS: no published tensor-core path; assumed 0.5 of the fp32 rate.
const GEMM_EFF_APPLE = 0.5;
// FlashAttention-2 reaches 50-73% of peak on A100 (arXiv:2307.08691 abstract) and only 35% on H100
// (FlashAttention-3, arXiv:2407.08608 abstract); PyTorch SDPA dispatches to the same FA2 kernels.
const ATTN_EFF_AMPERE = 0.55;
const ATTN_EFF_HOPPER = 0.35;
// cuDNN's fused attention against FlashAttention-2 in one harness on an H100 80GB SXM5, BF16, head dim 128, no causal
// mask, sequence 16k, the longest timed (FlashAttention-3, arXiv:2407.08608 section 4.1, Figure 5 "Attention forward
// speed, head dim 128": cuDNN 595, FlashAttention-2 370 TFLOPS; Figure 6 "Attention backward speed, head dim 128":
// cuDNN 516, FlashAttention-2 322). A ring block off the diagonal is such a call (torch's context-parallel ring runs
// each block after the first with is_causal False: _context_parallel/_attention.py at pytorch/pytorch@09b101c5);
// taken as cuDNN's share of the FA2 rate above on compute capability 9.0.
const CUDNN_FWD_SHARE_SM90 = 595 / 370;
const CUDNN_BWD_SHARE_SM90 = 516 / 322;
// The backward's attention FLOPs are 2.5 times the forward's (5 GEMMs against 2, arXiv:2205.14135 appendix B, as
// time/train-work.ts counts them); one rate for both passes keeps each pass's time: the FLOP-weighted harmonic mean.
const ATTN_BWD_FLOPS_PER_FWD = 2.5;
export const CUDNN_ATTN_SHARE_SM90 =
  (1 + ATTN_BWD_FLOPS_PER_FWD) /
  (1 / CUDNN_FWD_SHARE_SM90 + ATTN_BWD_FLOPS_PER_FWD / CUDNN_BWD_SHARE_SM90);
// Datacenter Blackwell (compute capability 10.x) runs FlashAttention-2 (and PyTorch's bundled flash SDPA kernels, the
// same code) through the sm_80 mma.sync path, not tcgen05: flash_attn 2.7.4.post1 on a B200 runs fwd + bwd at
// 258.7-345.8 TFLOPS, 345.8 at seqlen 16,384 (headdim 64, Dao-AILab/flash-attention#1589), and its forward at
// 330.6-361.6 TFLOPS at seqlen 2,048-16,384, headdim 128 (meta-pytorch/tritonbench#171): about an H100's FA2 rate,
// 0.154 of the B200's 2,250 TFLOPS spec. Hopper's 0.35 would time it at 788.
const ATTN_EFF_SM100_FA2 = 345.8 / 2250;
// On a GeForce die FlashAttention-2's matmuls run at the halved fp32-accumulate tensor rate (the catalog spec) while
// softmax's exponentials and rescales run on FP32 units that are not halved (RTX 4090: 82.6 FP32 TFLOPS against 165
// tensor, A100: 19.5 against 312), so the non-matmul work that holds FA2 below its GEMMs on an A100 hides behind
// them: FA2's forward on an RTX 4090 runs 150.9-173.0 TFLOPS, 172 at seqlen 2048 (headdim 64, fp16; https://github.com/ROCm/flash-attention/issues/27),
// 0.91-1.05 of the 165.2 spec. Its backward has no GeForce figure: attention is taken at the GEMM efficiency.
const ATTN_EFF_GEFORCE = GEMM_EFF_GEFORCE;
// Streaming kernels reach ~80-90% of peak DRAM bandwidth (STREAM-like copies; Databricks MBU 0.5-0.8 end to end
// for decode, https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices): assumed 0.85.
export const MEM_EFF = 0.85;
// MI300X sustains 81% of its 5.3 TB/s peak in BabelStream where NVIDIA GPUs reach up to 90% (Ambati et al., "AMD
// MI300X GPU Performance Analysis", arXiv:2510.27583, memory bandwidth section): AMD Instinct GPUs stream at 0.81.
export const MEM_EFF_AMD = 0.81;
// GDDR memory protects data with inline ECC: the check bits live in the same DRAM (6.25% of the capacity carved
// out), unlike HBM's sideband ECC, which costs no bandwidth (NVIDIA Tesla V100 whitepaper, "ECC Memory
// Resiliency"). Datacenter GDDR cards ship with it on (T4, A10, L4, L40S: nvidia-smi shows 15/16 of the memory;
// https://exafunction.com/blog/ecc-gpu for the T4's 15 GB). Chaos measured 15% lower performance with ECC on,
// on an RTX 4090 and an A40 (https://support.chaos.com/hc/en-us/articles/24886637113617): taken as the stream rate lost.
const INLINE_ECC_KEEP = 0.85;
// FP32 results per clock per SM: 64 on compute capability 7.x and 8.0, 128 on 8.6, 8.9, 9.0 and later (32-bit
// floating-point add, multiply, multiply-add: https://docs.nvidia.com/cuda/cuda-c-programming-guide/#arithmetic-instructions).
const fp32LanesPerSm = (cc: number): number => (cc < 8.6 ? 64 : 128);
/**
 * SM cycles a second of an NVIDIA card from its catalog FP32 rate (SMs x 2 x lanes x clock), or undefined where the
 * card is not NVIDIA or the catalog gives no FP32 rate.
 */
function smCyclesOf(g: Gpu): number | undefined {
  const cc = Number(g.computeCapability ?? 0) || 0;
  if (g.vendor !== 'nvidia' || g.tflops.fp32 === null || cc === 0) return undefined;
  return (g.tflops.fp32 * 1e12) / (2 * fp32LanesPerSm(cc));
}
/**
 * CU cycles a second of an AMD card from its catalog FP32 rate: a CDNA or RDNA 3 CU retires 256 FP32 operations a
 * clock (128 lanes' multiply-adds, packed or dual-issued: MI300X 304 CUs x 2.1 GHz x 256 = 163.4 TFLOPS, AMD Instinct
 * MI300X data sheet, https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf).
 */
function cuCyclesOf(g: Gpu, kc: number): Pick<GpuRates, 'cuCycles' | 'gfx' | 'cus'> {
  if (g.vendor !== 'amd' || g.tflops.fp32 === null) return {};
  return {
    cuCycles: ((g.tflops.fp32 * 1e12) / 256) * kc,
    gfx: String(g.computeCapability ?? ''),
    ...(g.computeUnits !== undefined ? { cus: g.computeUnits } : {}),
  };
}
/** The card's SM cycles (NVIDIA) or CU cycles and gfx target (AMD) a second at the power limit's clock share. */
function cyclesOf(
  g: Gpu,
  kc: number,
): Pick<GpuRates, 'smCycles' | 'smClock' | 'sms' | 'cuCycles' | 'gfx' | 'cus'> {
  const sm = smCyclesOf(g);
  return {
    ...(sm !== undefined ? { smCycles: sm * kc } : {}),
    ...(sm !== undefined && g.sms !== undefined && g.smClockFromFp32 !== false
      ? { smClock: (sm * kc) / g.sms }
      : {}),
    ...(sm !== undefined && g.sms !== undefined ? { sms: g.sms } : {}),
    ...cuCyclesOf(g, kc),
  };
}
/** The card runs GDDR with inline ECC on: its nvidia-smi capacity is at most 15/16 of its physical memory. */
const inlineEcc = (g: Gpu): boolean =>
  g.memoryType.startsWith('GDDR') &&
  g.memoryMiBBasis === 'nvidia-smi' &&
  g.memoryMiB <= (g.memoryGB * 1024 * 15) / 16;
// NCCL all-reduce bus bandwidth ~ 0.75-0.8 of the per-direction NVLink rate (nccl-tests on DGX A100 ~230 of
// 300 GB/s); Calculon a100_80g.json uses 0.6 NVLink / 0.9 InfiniBand.
const NVLINK_EFF = 0.75;
const NET_EFF = 0.9;
// PCIe DMA reaches ~80% of the x16 link rate (25-26 of 32 GB/s on Gen4, bandwidthTest): assumed 0.8.
export const PCIE_EFF = 0.8;

/** PCIe x16 GB/s per direction by generation. */
export function pcieGBps(pcie: string): number {
  const m = /PCIe\s*(\d)/i.exec(pcie);
  const gen = m ? Number(m[1]) : 4;
  const lanes = /x8\b/i.test(pcie) ? 0.5 : /x4\b/i.test(pcie) ? 0.25 : 1;
  return (gen >= 6 ? 128 : gen === 5 ? 64 : gen === 4 ? 32 : gen === 3 ? 16 : 8) * lanes;
}

/** NVLink through NVSwitch joins the whole node (SXM / OAM boards); bridges join pairs of cards. An NVL72 rack
 * (GB200 NVL72, NVL36 the half rack) joins its GPUs in one NVLink domain through nine NVLink Switch trays
 * (https://setloop.io/blog/gb200-nvl72-architecture, "72 GPUs as one NVLink domain"), so its TP ring is switched. */
export const nvSwitched = (g: Gpu): boolean =>
  /SXM|OAM|superchip|NVL(?:36|72)\b/i.test(g.formFactor ?? '');

/**
 * Throughput kept under a GPU power limit (fraction of board power), by what bounds the work.
 * Compute-bound: Puget 4x3090 at 280/350 W keeps >95%; qwertyforce 3090 ViT: 0.58 -> 0.90
 * (https://www.pugetsystems.com/labs/hpc/quad-rtx3090-gpu-wattage-limited-maxq-tensorflow-performance-1974/,
 * https://blog.qwertyforce.dev/posts/optimal_power_limit). Linear between rows.
 * Bandwidth-bound decode: a cap lowers the SM clock first and leaves the memory clock pinned, so the weight read
 * keeps its rate until the cap is deep. From 0.57 of board power up the points are llmgarage's six-RTX-3090
 * llama.cpp decode sweep at 4K context (72.6 tok/s at 350 W; 72.1 at 300, 70.7 at 250, 68.3 at 200 W:
 * https://llmgarage.ai/power-limit-tokens-per-second-benchmark); an RTX 5060 Ti llama.cpp decode at 150 of 180 W
 * keeps 0.99 (https://inventivehq.com/blog/gpu-power-limit-tokens-per-watt) and an RTX 3090 at 280 W loses <1%
 * (https://jeanfbrito.github.io/posts/rtx-3090-power-limit-sweet-spot/). Below 0.57 the sweeps part (llmgarage
 * 0.86 at 150 W, jeanfbrito a collapse below 200 W): the deep points are kept at 0.5 -> 0.85 and 0.3 -> 0.6.
 */
const POWER_CURVE_COMPUTE = [0.3, 0.45, 0.5, 0.75, 0.6, 0.85, 0.7, 0.91, 0.85, 0.965, 1, 1];
const POWER_CURVE_MEMORY = [
  0.3,
  0.6,
  0.5,
  0.85,
  200 / 350,
  68.3 / 72.6,
  250 / 350,
  70.7 / 72.6,
  300 / 350,
  72.1 / 72.6,
  1,
  1,
];

export function powerKeep(fraction: number, boundBy: 'compute' | 'memory'): number {
  const t = boundBy === 'compute' ? POWER_CURVE_COMPUTE : POWER_CURVE_MEMORY;
  if (fraction >= 1) return 1;
  if (fraction <= t[0]!) return t[1]!;
  for (let i = 2; i < t.length; i += 2) {
    const x = t[i]!;
    if (fraction <= x) {
      const x0 = t[i - 2]!;
      const y0 = t[i - 1]!;
      return y0 + ((t[i + 1]! - y0) * (fraction - x0)) / (x - x0);
    }
  }
  return 1;
}

// LLM decode on an H200 draws 137-300 W of its 700 W board power, so no cap at or above that binds it (Ma, Afzal,
// Eitzinger, Wellein 2026, "The Illusion of Power Capping in LLM Decode", arXiv:2605.11999, abstract).
const HBM_MEMORY_BOUND_DRAW = 300 / 700;

/**
 * Bandwidth kept by a memory-bound phase under a power limit. Serving on an NVIDIA HBM card, decode streams weights
 * at a fraction of board power, so the cap binds it only in proportion to HBM_MEMORY_BOUND_DRAW; a training step,
 * whose GEMMs hold the card at its cap, and a GDDR card follow POWER_CURVE_MEMORY against the cap itself.
 */
function memoryKeep(g: Gpu, fraction: number, serving: boolean): number {
  const hbm = serving && g.vendor === 'nvidia' && g.memoryType.startsWith('HBM');
  return powerKeep(hbm ? Math.min(1, fraction / HBM_MEMORY_BOUND_DRAW) : fraction, 'memory');
}

/**
 * Sustained tensor throughput per watt of board power of each architecture, from its flagship at spec: a card
 * whose spec TFLOPS exceed board power x this ratio cannot hold its boost clock under GEMM load (workstation
 * and low-power parts). Datacenter flagships are specified at the rate they train at. For the GeForce dies
 * (GA102, AD102, GB202) the flagship's basis is its dense bf16 rate with fp32 accumulation, the rate PyTorch's
 * bf16 matmuls run at on GeForce and the one our 3090/4090 throughput cases are matched at: the professional
 * cards on those dies are specified at twice that per clock but get no more power per FLOP. In the fsdp_qlora
 * benchmark an RTX 6000 Ada (300 W, 364 TFLOPS spec) trained Llama-2-70B QLoRA at 179-181 tokens/s per GPU, a
 * 4090 (450 W, 165 TFLOPS spec) the same model at 238 (github.com/AnswerDotAI/fsdp_qlora benchmarks_03_2024.md).
 */
const TFLOPS_PER_WATT: readonly [RegExp, number][] = [
  [/GA100/, 312 / 400], // A100 SXM 312 TFLOPS at 400 W (A100 datasheet)
  [/GA10[2-7]/, 71 / 350], // RTX 3090: 71 TFLOPS bf16, fp32 accumulate, at 350 W (GA102 whitepaper)
  [/Ada Lovelace/, 165.2 / 450], // RTX 4090: 165 TFLOPS bf16, fp32 accumulate, at 450 W (Ada whitepaper)
  [/Hopper/, 989.4 / 700], // H100 SXM: 989 TFLOPS bf16 at 700 W (H100 datasheet)
  [/Blackwell \(GB2/, 209.5 / 575], // RTX 5090: 209.5 TFLOPS bf16, fp32 accumulate, at 575 W (Blackwell whitepaper)
  [/Blackwell/, 2250 / 1000], // B200: 2.25 PFLOPS bf16 at 1000 W (HGX B200 datasheet)
  [/Volta/, 125 / 300], // V100 SXM2: 125 TFLOPS at 300 W
  [/Turing/, 130 / 280], // Titan RTX: 130 TFLOPS at 280 W (full-rate fp32 accumulate)
];

// Flagships hold their spec clock on GEMMs at ~85% of board power (H100 SXM LLM training draws ~550-650 of 700 W
// in public nvidia-smi logs): assumed 1/0.85.
const FLAGSHIP_HEADROOM = 1 / 0.85;

/** Dense 16-bit TFLOPS a card can sustain at its board power (or at `fraction` of it under a power limit). */
function sustainedTflops(g: Gpu, spec: number, fraction = 1): number {
  if (g.vendor !== 'nvidia' || !g.boardPowerW) return spec;
  for (const [re, perW] of TFLOPS_PER_WATT)
    if (re.test(g.architecture))
      return Math.min(spec, FLAGSHIP_HEADROOM * perW * g.boardPowerW * fraction);
  return spec;
}

/**
 * The 16-bit tensor peak a card is held at. A card whose 16-bit matmuls were measured (catalog gemm16MeasuredTflops,
 * the rate at shape factor 1) is held where its GEMMs at efficiency `eff16` reach that rate, the power wall's linear
 * watts-to-FLOPs scaling aside: a low-clock part runs at a better point of its voltage curve than the flagship.
 */
function held16Tflops(g: Gpu, spec16: number, eff16: number): number {
  if (g.gemm16MeasuredTflops !== undefined) return Math.min(spec16, g.gemm16MeasuredTflops / eff16);
  return sustainedTflops(g, spec16);
}

/**
 * bf16 matmul FLOP/s on an NVIDIA card without bf16 tensor cores (catalog supportsBf16 false: Volta, Turing), else
 * nothing. PyTorch calls cublasGemmEx with CUDA_R_16BF operands and CUDA_R_32F compute on every arch
 * (aten/src/ATen/cuda/CUDABlas.cpp gemm/bgemm_internal_cublas<at::BFloat16>: no compute-capability check since
 * pytorch/pytorch#50442 dropped "BFloat16 gemm in CUDA requires Ampere or later GPU"), and sm_70/sm_75 tensor cores
 * take fp16 operands only (bf16 MMA arrives with sm_80), so cuBLAS runs a CUDA-core kernel: the card's measured
 * rate (catalog gemmBf16EmulatedTflops: T4 2.2 TFLOPS at 4096^3, V100 9.6 at M = 2048), else its fp32 CUDA-core
 * rate, an upper bound (a CUDA-core GEMM runs no faster than the fp32 FMA pipe).
 */
function bf16Rate(g: Gpu, gemm32: number, kc: number): Pick<GpuRates, 'gemmBf16Emulated'> {
  if (g.vendor !== 'nvidia' || g.supportsBf16) return {};
  const measured = g.gemmBf16EmulatedTflops;
  return {
    gemmBf16Emulated: measured !== undefined ? Math.min(gemm32, measured * 1e12 * kc) : gemm32,
  };
}

/** The share of a GPU's dense 16-bit (and fp32) spec its large GEMMs reach (the constants above). */
function gemmEff(g: Gpu, hopper: boolean): number {
  if (g.vendor === 'apple') return GEMM_EFF_APPLE;
  if (g.vendor === 'amd') return GEMM_EFF_AMD;
  if (hopper) return GEMM_EFF_HOPPER;
  return isGeforceHalfRateAccumulate(g) ? GEMM_EFF_GEFORCE : GEMM_EFF_AMPERE;
}

/** A GeForce die whose catalog 16-bit rate is its fp32-accumulate rate, half its fp16-accumulate one. */
function isGeforceHalfRateAccumulate(g: Gpu): boolean {
  return (
    g.vendor === 'nvidia' &&
    g.category === 'consumer' &&
    /GA10\d|AD10\d|GB20\d/.test(g.architecture)
  );
}

/** The share of the held 16-bit peak FlashAttention-2 reaches on the card (the constants above). */
function attnEff(g: Gpu, hopper: boolean): number {
  if (g.vendor === 'nvidia' && isSm100(Number(g.computeCapability ?? 0) || 0))
    return ATTN_EFF_SM100_FA2;
  if (hopper) return ATTN_EFF_HOPPER;
  return isGeforceHalfRateAccumulate(g) ? ATTN_EFF_GEFORCE : ATTN_EFF_AMPERE;
}

/** cuDNN's fused-attention rate where one is sourced: compute capability 9.0 (H100, H200, H800), its FA2 rate's share. */
function cudnnAttnRate(g: Gpu, fa2: number): Pick<GpuRates, 'attnCudnn'> {
  const cc = Number(g.computeCapability ?? 0) || 0;
  return g.vendor === 'nvidia' && cc === 9 ? { attnCudnn: fa2 * CUDNN_ATTN_SHARE_SM90 } : {};
}

/**
 * Hopper and datacenter Blackwell (B100/B200/GB200, and Blackwell Ultra's B300 on the same SM100-family tensor cores and
 * 2.25 PFLOPS dense BF16): their GEMMs at Hopper's share, which torch bf16 matmuls on a B200 match (pytorch/ao#2427).
 */
function isHopperClass(g: Gpu): boolean {
  return /Hopper|Blackwell (?:Ultra )?\(GB1/i.test(g.architecture);
}

/**
 * The link assumed when --interconnect is not given: NVLink where it is part of the server (SXM boards,
 * NVSwitch, NVL pairs sold bridged); PCIe for consumer and workstation cards, whose NVLink bridge is an
 * optional accessory most multi-card rigs lack (the RTX 40 series and RTX 6000 Ada dropped it altogether).
 */
export function defaultInterconnect(g: Gpu): Interconnect {
  if (!g.interconnect.nvlinkGBps) return 'pcie';
  return g.category === 'consumer' || g.category === 'workstation' ? 'pcie' : 'nvlink';
}

/**
 * The bus rate of a group of `ranks` consecutive GPUs (a tensor-, context- or data-parallel group): across nodes the
 * network, inside one the pair's link or the group's.
 */
export function groupLink(ranks: number, r: GpuRates): number {
  return ranks > r.gpusPerNode ? r.interNode : ranks <= 2 ? r.intraPair : r.intraMany;
}

/**
 * Rates of one GPU on one rig at a power limit. `serving`: the card runs inference alone (no training step holds
 * it at its cap), so its memory-bound phases draw what they need and an HBM card's cap binds them late (memoryKeep).
 */
export function gpuRates(g: Gpu, t: TimeOptions, serving = false): GpuRates {
  const hopper = isHopperClass(g);
  const volta = g.vendor === 'nvidia' && /Volta/.test(g.architecture);
  const eff = gemmEff(g, hopper);
  const tf = g.tflops;
  // Apple catalog entries carry no TFLOPS: ~27 fp32 TFLOPS class (M2 Ultra GPU spec), assumed for all.
  const spec16 = tf.bf16 ?? tf.fp16 ?? tf.fp32 ?? 27;
  const eff16 = volta ? GEMM_EFF_VOLTA_16 : eff;
  const p16 = held16Tflops(g, spec16, eff16) * 1e12;
  const p32 = (tf.fp32 ?? tf.bf16 ?? 27) * 1e12;
  // Under a power limit a card keeps the share of its throughput the published curve gives, and never more
  // than its power wall allows: a flagship that needs its board power for spec clocks (sustainedTflops) loses
  // in proportion below that (H100 at torchtitan's default 500 W of 700 W keeps 0.84, not the curve's 0.92).
  const kc = Math.min(
    powerKeep(t.powerLimit, 'compute'),
    sustainedTflops(g, spec16, t.powerLimit) / sustainedTflops(g, spec16),
  );
  const km = memoryKeep(g, t.powerLimit, serving);
  const pcie = pcieGBps(t.pcieLink ?? g.interconnect.pcie) * 1e9;
  const nvlink = (g.interconnect.nvlinkGBps ?? 0) * 0.5e9; // spec totals are bidirectional
  const useNvlink = (t.interconnect ?? defaultInterconnect(g)) === 'nvlink' && nvlink > 0;
  // Without P2P NCCL bounces through host memory: about half the PCIe rate (NVIDIA/nccl#1127,
  // https://github.com/NVIDIA/nccl/issues/1127); RTX 4090 staged copies with both directions loaded measure
  // 10.6-15.3 GB/s a direction on PCIe 4.0 x16 (NVIDIA/nccl#814). GeForce cards have no PCIe P2P in the stock driver; a
  // GeForce `p2p` is the NVLink bridge's (catalog rtx-3090 notes), so it does not apply over PCIe.
  const pcieP2p = g.interconnect.p2p && g.category !== 'consumer';
  const pcieBus = (pcieP2p ? pcie : pcie / 2) * PCIE_EFF;
  const nvBus = nvlink * NVLINK_EFF;
  const gemm32 = p32 * (volta ? GEMM_EFF_VOLTA_32 : eff) * kc;
  return {
    gpuId: g.id,
    capacityBytes: gpuCapacityBytes(g),
    gemm16: p16 * eff16 * kc,
    ...(g.vendor === 'amd' && tf.fp8 ? { gemm8: tf.fp8 * 1e12 * FP8_GEMM_EFF_AMD * kc } : {}),
    gemm32,
    ...bf16Rate(g, gemm32, kc),
    attn: p16 * attnEff(g, hopper) * kc,
    ...cudnnAttnRate(g, p16 * attnEff(g, hopper) * kc),
    mem:
      g.memoryBandwidthGBps *
      1e9 *
      (g.vendor === 'amd' ? MEM_EFF_AMD : MEM_EFF) *
      (inlineEcc(g) ? INLINE_ECC_KEEP : 1) *
      km,
    peak16: spec16 * 1e12 * kc,
    spec16,
    sustained16: (p16 * kc) / 1e12,
    intraPair: useNvlink ? nvBus : pcieBus,
    // Consumer/workstation NVLink bridges join pairs: a ring over 3+ cards crosses PCIe.
    intraMany: useNvlink && nvSwitched(g) ? nvBus : pcieBus,
    host: pcie * PCIE_EFF,
    peerStaged: {
      pair: !useNvlink && !pcieP2p,
      many: !(useNvlink && nvSwitched(g)) && !pcieP2p,
    },
    ...(useNvlink && nvSwitched(g) ? {} : { socketLink: socketLinkBps(g.interconnect.pcie) }),
    interNode: t.interNodeGBps * 1e9 * NET_EFF,
    gpusPerNode: t.gpusPerNode,
    hopper,
    fp8: g.supportsFp8 === true,
    cc: Number(g.computeCapability ?? 0) || 0, // a gfx target (AMD) is no compute capability: 0
    rocm: g.vendor === 'amd',
    ...(g.vendor === 'apple' ? { apple: true } : {}),
    dmmv: dmmvResidency(g),
    l2Bytes: (g.l2CacheMiB ?? 0) * 2 ** 20,
    ...cyclesOf(g, kc),
    ...(useNvlink && g.interconnect.allReduce
      ? {
          allReduce: {
            ranks: g.interconnect.allReduce.ranks,
            bytes: g.interconnect.allReduce.bytes,
            seconds: g.interconnect.allReduce.microseconds.map((us) => us * 1e-6),
          },
        }
      : {}),
  };
}

/**
 * Seconds of one all-reduce of `bytes` over the catalog's measured group (GpuRates.allReduce): linear between the
 * measured sizes, the first size's time below them; above them the last size's time plus the extra bytes at the
 * fabric's bus rate (`busBytesPerSecond`, a ring's 2 x (ranks - 1) / ranks of them), or, without one, the last two
 * sizes' slope. A table that stops at a size its kernel handles (MI355X's: vLLM's custom all-reduce to 1.5 MB) says
 * nothing of the library that takes larger messages.
 */
export function measuredAllReduceSeconds(
  a: NonNullable<GpuRates['allReduce']>,
  bytes: number,
  busBytesPerSecond?: number,
): number {
  const n = a.bytes.length;
  if (bytes <= a.bytes[0]!) return a.seconds[0]!;
  if (busBytesPerSecond !== undefined && bytes > a.bytes[n - 1]!)
    return (
      a.seconds[n - 1]! +
      ((bytes - a.bytes[n - 1]!) * 2 * (a.ranks - 1)) / a.ranks / busBytesPerSecond
    );
  let i = 1;
  while (i < n - 1 && bytes > a.bytes[i]!) i++;
  const x0 = a.bytes[i - 1]!;
  const y0 = a.seconds[i - 1]!;
  return y0 + ((a.seconds[i]! - y0) * (bytes - x0)) / (a.bytes[i]! - x0);
}

/**
 * FLOP/s of a matmul in this compute: fp32's rate, bf16 at the emulated rate on a card without bf16 tensor cores
 * (gemmBf16Emulated), else the 16-bit tensor rate.
 */
export function matmulRate(r: GpuRates, fp32: boolean, bf16: boolean): number {
  if (fp32) return r.gemm32;
  return (bf16 ? r.gemmBf16Emulated : undefined) ?? r.gemm16;
}
