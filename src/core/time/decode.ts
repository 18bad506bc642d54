/** Decode and prefill: bytes and FLOPs per step by kernel family, host dispatch, TP all-reduces. */
import { v0HostSeconds } from './v0-host.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { shapeFactor } from './shape.js';
import { dmmvTailSeconds } from './matvec-tail.js';
import { mmvqColumnSeconds } from './mmvq-columns.js';
import { bnbDequantSlowdown, copyBytes } from './bnb-dequant.js';
import { floatExpertRead } from './float-experts.js';
import { moeCallLatency, moeCallSeconds, nativeFp4 } from './moe-call.js';
import { aiterMoeSeconds } from './aiter-moe.js';
import { tritonMoeSeconds } from './moe-grid.js';
import { decodeTritonMoe } from './moe-pad-rows.js';
import { piecewiseAttentionSeconds, unsplitTritonLayers } from './piecewise.js';
import { samplerStepSeconds } from './sampler-step.js';
import { linearKernelSeconds } from './rocm-gemm.js';
import { stepCore } from './decode-attention.js';
import { blockFp8GemmRate } from './block-fp8.js';
import { fp32RouterSecondsPerRow } from './fp32-router.js';
import { prefillExpertFlops, prefillExpertGemmRate } from './fp4-bf16-moe.js';
import { prefillAttentionFlops, prefillAttentionRate } from './prefill-attention.js';
import { decodeTpSeconds, stepMatVecs } from './decode-tp.js';
import { paddedExpertFlops, perSlotExpertRead, tileExpertReadFloor } from './moe-tile.js';
import { mxfp4ExpertPadFactor, mxfp4MarlinFrom10 } from './mxfp4-pad.js';
import { rocmMoeUnpackedElements, type RocmMoeBlockRows } from './rocm-moe-programs.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { QUANT_FORMATS_FOR, type QuantFormat, type TimeOptions } from '../../schema/time.js';
import { defaultQuantFormat, rocmGfx } from './hardware.js';
import type { GpuRates } from './hardware.js';
import { DECODE_PHASES, linearReadBytes } from './model-facts.js';
import type { Bound, DecodePhase, ModelFacts } from './model-facts.js';
import { argmaxBound } from './train-step.js';
import { busiestRankFactor, distinctExperts } from './expert-balance.js';
import { decodeHost, serialSeqSeconds, trtllmMoe16, trtllmMoeBlockFp8 } from './decode-host.js';
import { eagerPrefillHostSeconds, overlappedHostSeconds, routedBatch } from './graph-step.js';
import { eagerPrefillPassSeconds } from './eager-prefill-passes.js';
export { eagerPrefillHostSeconds } from './graph-step.js';
import { embedOnly } from './train-work.js';
import { linearPasses, type MBlocks } from './m-blocks.js';
import {
  expertDownShare,
  headElementBytes,
  l2HeldElements,
  mxfp4DenseRead,
  stepCacheBytes,
  unpackedBytes,
} from './decode-reads.js';

// ---------------------------------------------------------------------------------------------
// Decode.

/**
 * Decode kernel families: bandwidth efficiency of the weight read relative to a bf16 GEMV at small batch,
 * and the batch above which the kernel dequantizes whole weights and runs a 16-bit GEMM instead.
 */
interface KernelFamily {
  eff8: number;
  eff4: number;
  crossover: number;
  src: string;
  /** Efficiencies on Hopper-class GPUs where the kernel has no Hopper path (absent: as on Ampere). */
  hopper?: { eff8: number; eff4: number };
  /** Efficiencies on AMD GPUs (ROCm), where the engine runs another library's kernel (absent: as on CUDA). */
  rocm?: { eff8: number; eff4: number };
  /**
   * A mat-vec that dequantizes and dots in its threads' registers is bound by its arithmetic where the card's SMs
   * issue too few instructions for its bandwidth: weight bytes per SM cycle, and the most batch columns the kernel
   * takes (more run another kernel). The weights' unpacking is counted once a step whatever the columns; the extra
   * columns' dot products on a GA10x card are mmvq-columns.ts's (measured growth). Above `maxColumns` the tile kernel
   * that takes over unpacks the same blocks into its shared-memory tiles, once per column tile of at most `tileColumns`
   * (a routed expert's tiles cover its own tokens). Absent: bandwidth only.
   */
  issue?: { bytesPerSmCycle: number; maxColumns: number; tileColumns: number };
  /**
   * The routed experts of an MXFP4 MoE on the AMD targets listed, which have no FP4 matrix cores: the weight-only
   * kernel there unpacks each FP4 tile to 16 bits in registers before its matrix instructions, bound by the CUs' work
   * where that outlasts the read: weight bytes (scales included) per CU cycle, once for every block of rows a routed
   * expert's tokens fill (rocm-moe-programs.ts rocmMoeRowBlocks). Absent: bandwidth only.
   */
  rocmMoeIssue?: {
    targets: readonly string[];
    bytesPerCuCycle: number;
    /** The kernel's rows a program by the expected tokens an expert (rocm-moe-programs.ts RocmMoeBlockRows). */
    blockRows: RocmMoeBlockRows;
    /** Output columns of one program's tile: a step's programs are its routed experts' column tiles (rocm-moe-programs.ts). */
    tileColumns: number;
  };
  /**
   * A kernel whose only tensor-core instruction is Ampere's mma.sync, on Hopper (compute capability 9.x, where wgmma
   * GEMMs set the 16-bit rate): the share of the card's 16-bit peak its large-M GEMMs reach. Applied where the run
   * names the kernel (TimeOptions.quantFormat): the format a weight dtype defaults to stands for a weight-only family
   * whose Hopper kernel differs by engine and version. Absent: the 16-bit GEMM rate.
   */
  hopperPeakShare?: number;
  /**
   * The same on compute capability 8.0 (A100, A800, A30), where mma.sync is the card's own tensor-core peak
   * instruction: the share of the 16-bit peak the kernel's large-M GEMMs reach. Applied where the run names the
   * kernel, as hopperPeakShare. Absent: the 16-bit GEMM rate.
   */
  sm80PeakShare?: number;
  /**
   * The kernel walks a GEMM's rows in passes of fixed-height blocks, each pass one stream of the weights (m-blocks.ts):
   * where its large-M rate is sourced (sm80PeakShare on compute capability 8.0), a prefill's linears take their passes'
   * time rather than the 16-bit GEMM's small-M shape loss. Absent: FLOPs at the rate, shape-scaled, plus one read.
   */
  mBlocks?: MBlocks;
}
const KERNELS: Record<QuantFormat, KernelFamily> = {
  // gpt-fast blog: Llama-2-7B A100 bf16 107 -> int8 157 -> int4 202 tok/s at 1/2 and ~1/3.6 of the bytes.
  torchao: {
    eff8: 0.73,
    eff4: 0.5,
    crossover: 16,
    src: 'https://pytorch.org/blog/accelerating-generative-ai-2/',
  },
  // Marlin: "near-optimal ~4x speedups up to batch sizes of 16-32 tokens", and a fused int4 x fp16 GEMM
  // that never dequantizes to memory (https://github.com/IST-DASLab/marlin; Frantar et al., MARLIN, arXiv:2408.11743
  // Fig. 1); its large-M rate is held below the 16-bit GEMM's on Hopper and on an A100 (the shares below).
  // On Hopper Marlin keeps its Ampere pipeline (mma.sync, cp.async; README Requirements: "Marlin is not yet
  // optimized for Hopper"; vLLM added Machete, CUTLASS wgmma + TMA, for W4A16 there): it falls short of HBM3's
  // rate. No published figure: 0.72 (8-bit) and 0.57 (4-bit) were worked out from calibration rows
  // vllm-rtn-8b-int8-b1 and vllm-rtn-8b-int4-b1 (in sample; calibration/assumed.json).
  marlin: {
    eff8: 0.9,
    eff4: 0.9,
    crossover: Infinity,
    src: 'IST-DASLab/marlin README',
    hopper: {
      eff8: 0.72, // Marlin on Hopper, 8-bit
      eff4: 0.57, // Marlin on Hopper, 4-bit
    },
    // vLLM's Marlin issues mma.sync m16n8k16 only, no wgmma (vllm-project/vllm@55f7192cdc0229becba6188d7ae198f93f524cf1
    // csrc/quantization/gptq_marlin/marlin_mma.h), so a prefill's GEMMs stay below Hopper's wgmma rate: vLLM's
    // fused_marlin_moe on an H20 (BF16 activations, MXFP4 experts of Mixtral's shape, E 8, H 4096, I 14336, top-2) runs
    // 16,384 tokens in 144.58 ms, 1.154e13 FLOP at 79.8 TFLOPS, 0.54 of the H20's 148 dense BF16 TFLOPS, where a
    // wgmma Triton kernel on the same card runs them in 87.31 ms (https://github.com/flagos-ai/FlagGems/pull/4483).
    hopperPeakShare: 0.54, // Marlin's large-M GEMMs on Hopper, flagos-ai/FlagGems#4483
    // Above 64 rows Marlin runs its batch-64 kernel once per 64-row block ("for batchsizes > 64, it will just run the
    // batch 64 kernel repeatedly", IST-DASLab/marlin#2), so a prefill's or a large batch's GEMMs stay at that tile's
    // rate: IST-DASLab/marlin bench.py on an A100-class card (1,158 GB/s at batch 1, above every other Ampere card's
    // bandwidth) holds 141.1-141.4 TFLOP/s from batch 128 to 4,000, 0.61-0.74 of torch's fp16 GEMM there
    // (vllm-project/vllm#2497, resorcap's comment of 2024-01-24): 141.4 of the A100's 312 dense 16-bit TFLOPS.
    sm80PeakShare: 0.45, // Marlin's large-M GEMMs on an A100, vllm-project/vllm#2497
    // 16-row blocks, kernels of 1-4 blocks, the 4-block one repeated above 64 rows (IST-DASLab/marlin@e017bb46
    // marlin/marlin_cuda_kernel.cu, the `tot_m_blocks` loop; m-blocks.ts).
    mBlocks: { rows: 16, perPass: 4 },
    // AMD GPUs have no Marlin: the weight-only MXFP4 MoE path on gfx942 is triton_kernels' matmul_ogs (vLLM's ROCm
    // MXFP4 MoE backend without AITER's CK kernels, which need gfx950: vllm/model_executor/layers/quantization/
    // mxfp4.py get_mxfp4_backend). Its decode GEMM of gpt-oss-20b's experts (E 32, K 3072, N 6144, top-4, M 1) takes
    // 79 µs on an MI300X with Triton before 3.7.1 (119 µs with 3.7.1's amdgpu trackers flag): 4 x 3072 x 6144 x
    // (0.5 + 1/32) B = 40.1 MB through its 32x256x128 tile, 4 experts x 24 column tiles = 96 programs on 96 of the
    // 304 CUs at 2.1 GHz: 40.1e6 / (96 x 2.1e9 x 79e-6) = 2.5 B a CU cycle (ROCm/triton#970).
    // The tile's 256 columns: triton_kernels' AMD `compute_block_nk` takes min(256, next power of 2 of routed blocks x N
    // x XCDs / CUs), 256 for gpt-oss's shapes from 2 routed rows on (triton-lang/triton@3c9779a6
    // python/triton_kernels/triton_kernels/matmul_ogs_details/opt_flags_amd.py), ROCm/triton#970's 32x256x128.
    rocmMoeIssue: {
      targets: ['gfx942'],
      bytesPerCuCycle: 2.5, // one program's CU, ROCm/triton#970 (above)
      // make_default_opt_flags_amd (triton-lang/triton@3c9779a6 python/triton_kernels/triton_kernels/
      // matmul_ogs_details/opt_flags.py): block_m = max(32, min(next_power_of_2(tokens_per_expt), 64)), 128 where
      // tokens_per_expt >= 512 and N >= 2048 (ROCm/triton#970's M-1 tile has 32 rows).
      blockRows: { min: 32, max: 64, large: 128, largeFromRows: 512, largeMinColumns: 2048 },
      tileColumns: 256, // compute_block_nk, triton-lang/triton@3c9779a6 opt_flags_amd.py
    },
  },
  // CUTLASS W8A8 FP8/INT8 (and FP4 on Blackwell) GEMMs read the low-precision weight once per step like a
  // 16-bit GEMM; compute-bound batches run at the FP8 rate (time/index.ts decode). At batch 1 on H100 vLLM's
  // benchmark (Llama-3.1-8B qkv, N=6144 K=4096) runs torch bf16 at 2.51 TFLOP/s and FP8 channel-weight /
  // per-token-activation with its quantization at 4.06: 1.62x for half the bytes, 0.81 of the bf16 read rate
  // (benchmarks/kernels/bench_fp8_gemm.py output in https://github.com/vllm-project/vllm/pull/17126). INT8 W8A8
  // (CUTLASS int8) is taken alike; FP4 assumed 0.9.
  cutlass: {
    eff8: 0.81, // FP8 W8A8 at batch 1, vllm-project/vllm#17126
    eff4: 0.9,
    crossover: Infinity,
    src: 'https://docs.vllm.ai/en/latest/features/quantization/fp8.html',
    // ROCm has no CUTLASS: vLLM runs FP8 W8A8 through torch._scaled_mm, i.e. hipBLASLt (vllm/model_executor/layers/
    // quantization/utils/w8a8_utils.py @v0.6.3 cutlass_fp8_supported: "cutlass is not supported on Rocm"). On MI300X
    // torch's FP8 GEMM at decode M=1 takes 14.94 us (N=2304 K=16384), 77.64 us (N=13312 K=16384) and 31.07 us
    // (N=16384 K=6656): Llama-3.1-405B's TP8 QKV, gate/up and down, 364.9 MB in 123.6 us, 2.95 TB/s, 0.69 of the
    // 0.81 x 5.3 TB/s stream rate (rocm/vllm 0.6.6 container; https://huggingface.co/blog/mi300kernels, skinny GEMM table).
    // INT8 W8A8 is taken alike; FP4 never reaches this family on AMD GPUs (kernelOn: weight-only there).
    rocm: { eff8: 0.69, eff4: 0.9 },
  },
  // llama.cpp CUDA: mul_mat_vec_q for up to 8 rows, then MMQ (int8 tensor cores on the quantized blocks, no
  // dequantized copy): ggml/src/ggml-cuda/mmvq.cu, mmq.cu. Read rate 0.93 of the stream rate: ggml-org/llama.cpp#6766
  // decodes LLaMA 2 7B q4_0 (about 3.75 GB a token, 992 unfused graph kernels) at 128.27 tok/s on an RTX 3090 and
  // 146.81 on an RTX 4090; less the kernels at llama.cpp's graph-kernel cost (LLAMA_CPP_MEMORY.graphKernelCycles:
  // 2.90 and 1.95 ms) the reads run at 0.82 and 0.77 of peak, 0.96 and 0.90 of MEM_EFF's stream rate (assumed.json).
  // The 8-bit types are taken alike. HBM cards are bound by the kernel's SM work instead (issue, below).
  gguf: {
    eff8: 0.93,
    eff4: 0.93,
    crossover: Infinity,
    src: 'https://github.com/ggml-org/llama.cpp/tree/master/ggml/src/ggml-cuda',
    // mul_mat_vec_q unpacks each block and dots it with the q8_1 activation in registers, for up to
    // MMVQ_MAX_BATCH_SIZE 8 columns (ggml-org/llama.cpp ggml/src/ggml-cuda/mmvq.cuh, mmvq.cu). 5.6 B a cycle:
    // gemma-4-31B Q4_K_M (18.3 GB) under llama-server at 68, 71 and 75 tok/s on H100 SXM, H200 and B300
    // (pavlokhmel/llm_throughput_benchmark@03a00c53 results.md, columns not scored), less 2.3 ms of graph gaps and
    // server loop: the same tok/s on an H100 and an H200, same SMs and clock, 1.43x the bandwidth (assumed.json).
    // Above 8 columns MMQ's load_tiles unpack each block to int8 in shared memory before the int8 MMA, once per column
    // tile of up to mmq_x 128 (ggml/src/ggml-cuda/mmq.cuh load_tiles_q4_0 ... load_tiles_mxfp4, get_mmq_x_max_host,
    // ggml-org/llama.cpp@6b8ed41f2be77c67e893b506d2693aa8c68c62d2): the same unpacking, at the mat-vec's rate (assumed.json).
    issue: { bytesPerSmCycle: 5.6, maxColumns: 8, tileColumns: 128 },
    // The HIP build (ROCm) compiles the same mmvq.cu for wave64/wave32 AMD GPUs; ggml-org/llama.cpp#6766's pair is
    // CUDA on GeForce cards, and no HIP pair was found: AMD GPUs keep the assumed 0.75 (assumed.json).
    rocm: { eff8: 0.75, eff4: 0.75 },
  },
  // ExLlamaV2 matmul kernels for batch <= ~16, dequant + cuBLAS above (turboderp/exllamav2 README, assumed 0.75).
  exl2: { eff8: 0.75, eff4: 0.75, crossover: 16, src: 'turboderp/exllamav2' },
  // AutoAWQ: GEMV kernel fastest at batch 1, GEMM kernel up to batch 8-16 (casper-hansen/AutoAWQ README).
  awq: { eff8: 0.65, eff4: 0.65, crossover: 16, src: 'casper-hansen/AutoAWQ README' },
  // GPTQ through transformers/optimum exllama kernels: ~20-35% faster than fp16 at 13B (https://github.com/mit-han-lab/llm-awq/issues/79).
  gptq: { eff8: 0.55, eff4: 0.55, crossover: 16, src: 'github.com/mit-han-lab/llm-awq/issues/79' },
  // HQQ 4-bit decodes through torchao's tinygemm int4 kernel (https://github.com/mobiusml/hqq): like torchao.
  hqq: { eff8: 0.6, eff4: 0.45, crossover: 8, src: 'https://github.com/mobiusml/hqq' },
  // bitsandbytes 0.40 4-bit inference kernel covers batch 1 only (release notes 0.40.0); above it
  // dequantizes to fp16 per call. LLM.int8 cost is per linear (INT8_LINEAR_SECONDS).
  bnb: { eff8: 0.5, eff4: 0.5, crossover: 1, src: 'bitsandbytes 0.40.0 release notes' },
};
export interface DecodeTime {
  /** Seconds per decode step (one token for each of the batch's sequences). */
  stepSeconds: number;
  /** Tokens generated per second by one model replica (batch x steps/s). */
  tokensPerSecond: number;
  /** Prefill of the whole context, seconds (not in decode tokens/s). */
  prefillSeconds: number;
  phases: Float64Array;
  bound: Bound;
  /** Model FLOPs of a decode step per GPU (2 x active params x batch / tp). */
  flopsPerGpu: number;
}

const EMPTY = new Float64Array(0);
const DPH = Object.fromEntries(DECODE_PHASES.map((p, i) => [p, i])) as Record<DecodePhase, number>;

// llama.cpp layers left in host RAM decode at host memory bandwidth: dual-channel DDR5-5600 peaks at 89.6 GB/s
// and CPU token generation reaches ~60% of it (ggml-org/llama.cpp discussion 3847's CPU tables; assumed 55 GB/s).
const HOST_DECODE_BYTES_PER_S = 55e9;
// ggml's scheduler runs an op whose weight is in host memory on the GPU, copying the weight over, once the op's
// batch reaches the CUDA backend's offload threshold: GGML_OP_OFFLOAD_MIN_BATCH, default 32 tokens (MUL_MAT_ID's
// batch is its ne[2], the tokens; ggml_backend_cuda_device_offload_op and get_op_batch_size,
// ggml-org/llama.cpp@00108827d87949b538ad1821f81a6b111827fcda ggml/src/ggml-cuda/ggml-cuda.cu).
const OP_OFFLOAD_MIN_BATCH = 32;

/**
 * A decode step's host-held experts (`--n-cpu-moe`): below the offload threshold the CPU multiplies the experts
 * its tokens route to, at host memory bandwidth; from it the scheduler copies those experts to the GPU over the
 * host link (ggml_backend_sched_compute_splits copies only the used ones, ggml-backend.cpp @0054c013).
 */
const hostExpertSeconds = (tr: Traffic, B: number, r: GpuRates): number =>
  tr.hostExperts / (B >= OP_OFFLOAD_MIN_BATCH ? r.host : HOST_DECODE_BYTES_PER_S);

// Low-precision tensor cores (FP8/INT8 W8A8) run dense GEMMs at twice the 16-bit rate (H100/L40S/RTX 4090
// datasheets: FP8 and INT8 dense TFLOPS = 2x BF16;
// https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet).
const W8A8_SPEEDUP = 2;

/** The kernel a serving engine's W8A8/FP4 path falls back to on the GPU: Marlin weight-only without the cores. */
export function kernelOn(
  q: QuantFormat | null,
  o: EstimateOptions,
  r: GpuRates,
): QuantFormat | null {
  // AMD GPUs have no Marlin: vLLM's ROCm platform runs AWQ/GPTQ int4 through the plain kernels
  // (vllm/platforms/rocm.py supported_quantization: awq_marlin "will be overwritten with awq"); nor do GPUs below
  // compute capability 8.0 (Marlin's get_min_capability 80; the plain AWQ kernel from 75: vllm and sglang awq.py).
  if (q === 'marlin' && o.weights === 'int4' && (r.rocm || (r.cc > 0 && r.cc < 8))) return 'awq';
  if (q !== 'cutlass') return q;
  if (o.weights === 'fp8' && !r.fp8) return 'marlin';
  // FP4 tensor cores from 10.0, save where the engine's MXFP4 default is Marlin (mxfp4MarlinFrom10); AMD GPUs (cc 0)
  // timed weight-only too (vLLM's gpt-oss recipe: triton kernels; SGLang's Petit kernels dequantize NVFP4 on gfx942).
  const fp4 = o.weights === 'mxfp4' || o.weights === 'nvfp4';
  return (fp4 && r.cc < 10) || mxfp4MarlinFrom10(o, r.cc) ? 'marlin' : q;
}

/**
 * What llama.cpp keeps on the host, as shares of the layers: whole layers past `--gpu-layers` (the first
 * L - ngl), and with `--n-cpu-moe N` the routed experts of the first max(N, L - ngl) layers (memory/inference.ts
 * layerSplit); 0 for every other engine.
 */
function hostShare(
  m: ModelFacts,
  o: EstimateOptions,
): { layers: number; experts: number; head: boolean } {
  if (!FRAMEWORKS[o.framework].layerOffload) return { layers: 0, experts: 0, head: false };
  const ngl = Math.min(o.gpuLayers ?? m.layers + 1, m.layers + 1);
  const layers = (m.layers - Math.min(ngl, m.layers)) / m.layers;
  const cpuMoe = Math.min(o.cpuMoeLayers ?? 0, m.layers) / m.layers;
  return { layers, experts: Math.max(layers, cpuMoe), head: ngl <= m.layers };
}

interface Traffic {
  /** Bytes a decode step reads on the GPU (weights at the kernel's efficiency; KV) and on the host. */
  weightGpu: number;
  kvGpu: number;
  host: number;
  /** llama.cpp `--n-cpu-moe`: stored bytes of the host-held experts a step routes to (beyond whole host layers),
   * and of all of them (a prefill ubatch routes to nearly every expert). */
  hostExperts: number;
  hostExpertsAll: number;
  /** Linear weight elements a step reads, and bytes per weight element. */
  linearRead: number;
  wb: number;
  q: QuantFormat | null;
  /** Routed-expert bytes a step reads on one GPU, at the kernel's efficiency (0 for a dense model). */
  expertGpu: number;
  /** The step's linears multiply an fp32 dequantized copy (TimeOptions.bnbDecodeFp32): fp32 GEMMs. */
  fp32Gemm: boolean;
  /** Stored weight bytes an arithmetic-bound mat-vec works through on one GPU in a step (KernelFamily.issue). */
  issueBytes: number;
  /** Stored routed-expert bytes an arithmetic-bound MoE kernel works through on one GPU (KernelFamily.rocmMoeIssue). */
  moeIssueBytes: number;
  /** GEMM FLOPs per GPU beyond the routed tokens' where the engine's MoE tile kernel pads its tiles (moe-tile.ts). */
  paddedFlops: number;
  /** FLOP/s of the step's GEMMs (gemmRate), and of a prefill's (a block-scaled checkpoint's capped, blockFp8GemmRate):
   * its linears', and its routed experts'. */
  rate: number;
  prefillRate: number;
  prefillExpertRate: number;
  /** The step's kernel tiles its rows at a sourced large-M rate on this GPU (KernelFamily.mBlocks), or null. */
  mBlocks: MBlocks | null;
  aiter?: boolean; // AITER's kernels run the ROCm attention (TimeOptions.rocmAiter; stepCore's KV read)
  fp32Router?: number; // seconds a token of the engine's fp32 router GEMM (fp32-router.ts), beyond the linears
}

/**
 * Linear weight elements a step of B sequences reads: an MoE layer reads the distinct experts its tokens route to,
 * E(1-(1-k/E)^B) on average (`o`'s busiest expert-parallel rank's: expert-balance.ts), every expert where the step
 * runs them all (generateAllExperts), or `slotRead` where per-slot mat-vecs read one a token and slot (moe-tile.ts);
 * no fewer than `floorRead` (moe-tile.ts tileExpertReadFloor).
 */
function linearReadOf(
  m: ModelFacts,
  t: TimeOptions,
  B: number,
  slotRead: number | null = null,
  o?: EstimateOptions,
  floorRead = 0,
): { linearRead: number; expertRead: number } {
  if (m.experts <= 1) return { linearRead: m.linearTotal, expertRead: 0 };
  const dense = m.linearTotal - m.expertWeightsPerLayer * m.experts * m.moeLayers;
  const ep = o && slotRead === null ? busiestRankFactor(m, o, B) : 1;
  const distinct = t.generateAllExperts ? m.experts : distinctExperts(m, B) * ep;
  const expertRead =
    slotRead ?? Math.max(m.expertWeightsPerLayer * distinct * m.moeLayers, floorRead);
  return { linearRead: dense + expertRead, expertRead };
}

/**
 * The routed-expert weight elements of an MXFP4 MoE step that the AMD target unpacks in its CUs' registers
 * (KernelFamily.rocmMoeIssue): each routed expert's once for every block of rows its tokens fill, each GEMM's scaled
 * by the CUs its programs leave idle (rocm-moe-programs.ts); 0 elsewhere.
 */
function rocmMoeIssueElements(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  k: KernelFamily | null,
  B: number,
  expertRead: number,
): number {
  const mi = k?.rocmMoeIssue;
  if (!mi || !r.gfx || !mi.targets.includes(r.gfx) || o.weights !== 'mxfp4' || expertRead <= 0)
    return 0;
  const distinct = expertRead / (m.expertWeightsPerLayer * m.moeLayers);
  return rocmMoeUnpackedElements(m, o.tp, r.cus, mi, { tokens: B, distinct, expertRead });
}

/**
 * The linear and routed-expert weight elements a step of B reads (linearReadOf), the experts at the shape the engine
 * pads MXFP4 experts to for its kernel, the pad's zeros included (mxfp4-pad.ts); the expert elements an AMD target
 * unpacks in its CUs (rocmMoeIssueElements) and the expert FLOPs beyond the routed tokens' (paddedExpertFlops).
 */
function stepRead(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  B: number,
  q: QuantFormat | null,
): { linearRead: number; expertRead: number; moeIssue: number; paddedFlops: number } {
  const fw = FRAMEWORKS[o.framework];
  // Per-(token, slot) expert reads where the engine's quantized MoE matmul runs so at B (moe-tile.ts).
  const slot = q !== null ? perSlotExpertRead(m, fw, B, r.cc) : null;
  const floor = q !== null ? tileExpertReadFloor(m, fw, B, r.cc) : 0;
  const read = linearReadOf(m, t, routedBatch(o, t, r, B), slot, o, floor);
  const padF = mxfp4ExpertPadFactor(m, fw, o, r, q);
  const expertRead = read.expertRead * padF;
  const stored = read.expertRead;
  return {
    linearRead: read.linearRead + expertRead - stored,
    expertRead,
    moeIssue: rocmMoeIssueElements(m, o, r, q ? KERNELS[q] : null, B, stored) * padF,
    paddedFlops: paddedExpertFlops(m, fw, {
      batch: q ? B : 0,
      cc: r.cc,
      expertRead: stored,
      tp: o.tp,
    }),
  };
}

/** What one decode step of B sequences at context `ctx` reads, per GPU and on the host. */
export function decodeTraffic(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  B: number,
  ctx: number,
): Traffic {
  const q = stepKernel(o, t, r);
  const wb = o.weights === 'fp32' ? 4 : linearReadBytes(m, o.weights);
  const read = stepRead(m, o, t, r, B, q);
  const { linearRead, expertRead } = read;
  // MXFP4 MoE checkpoints (gpt-oss) quantize the experts only; the rest is read at the engine's dtype (mxfp4Dense).
  const bf16Read = o.weights === 'mxfp4' && expertRead > 0 ? linearRead - expertRead : 0;
  const k = q ? KERNELS[q] : null;
  // A kernel without a Hopper path reads at its Hopper efficiency there (KernelFamily.hopper); on ROCm the engine's
  // kernel for the family (KernelFamily.rocm).
  const e = k && r.rocm && k.rocm ? k.rocm : k && r.hopper && k.hopper ? k.hopper : k;
  const eff = e ? (o.weights === 'int8' || o.weights === 'fp8' ? e.eff8 : e.eff4) : 1;
  const dense = mxfp4DenseRead(o, e);
  const headBytes = t.noOutputHead ? 0 : m.lmHead * headElementBytes(m, o, q, wb, dense.bytes);
  // Above the crossover (for AWQ the engine's own, awqGemmMaxTokens): dequantize (write 2 B) then a 16-bit GEMM reads
  // it back (2 B), from L2 where the 16-bit copy fits in it (l2HeldElements). bitsandbytes' 4-bit dequantization runs
  // its tree kernel (before 0.48) or its lookup kernel, each slower than the memory rate on some GPUs (bnb-dequant.ts).
  const [feRead, feBytes] = floatExpertRead(m, o, t, expertRead); // never dequantized
  const qRead = linearRead - bf16Read - feRead;
  const fw = FRAMEWORKS[o.framework];
  const dequantizes = k !== null && B > ((q === 'awq' && fw.awqGemmMaxTokens) || k.crossover);
  const tree = q === 'bnb' && wb < 1 ? bnbDequantSlowdown(r.cc, t.bnbTreeDequant === true) : 1;
  // Bytes per element of the dequantized copy: the compute dtype's 2, or 4 where the captured step dequantizes bnb
  // weights to fp32 (TimeOptions.bnbDecodeFp32), or, averaged, the routed experts' down alone (bnbDecodeFp32MoeDown).
  const cb = copyBytes(q, t, qRead > 0 ? ((expertRead - feRead) * expertDownShare(m)) / qRead : 0);
  const linearBytes =
    (bf16Read * dense.bytes) / dense.eff +
    feBytes +
    (dequantizes
      ? qRead * ((wb + cb) * tree + cb) - cb * l2HeldElements(m, r, cb)
      : (qRead * wb) / eff);
  // Bytes per linear weight element as stored (prefill reads each once; host layers at this size).
  const wbStored = (bf16Read * dense.bytes + qRead * wb + feBytes) / linearRead;
  const kv = B * stepCacheBytes(m, o, ctx);
  const h = hostShare(m, o);
  // The experts --n-cpu-moe moves to the host beyond whole host layers: their share of the GPU's bytes (the
  // expert elements sit in qRead; a 16-bit model reads them at 2 B).
  const moved = h.experts - h.layers;
  const expertBytes = feBytes || expertRead * (dequantizes ? (wb + cb) * tree + cb : wb / eff);
  const weightGpu =
    (linearBytes * (1 - h.layers) - expertBytes * moved + (h.head ? 0 : headBytes)) / o.tp;
  const host = linearRead * wbStored * h.layers + (h.head ? headBytes : 0) + kv * h.layers;
  const expertGpu = ((feBytes || (expertRead * wb) / eff) * (1 - h.experts)) / o.tp;
  const w = { bf16Read, denseBytes: dense.bytes, qRead, feRead, expertRead, wb };
  const unpacked =
    k?.issue && !dequantizes ? unpackedBytes(m, B, k.issue, w, { ...h, moved, headBytes }) : 0;
  const issueBytes = unpacked / o.tp;
  const moeIssueBytes = (read.moeIssue * (1 - h.experts) * wb) / o.tp;
  const rate = gemmRate(q, r, t.quantFormat);
  // The fields blockFp8GemmRate reads, not a spread of every rate (a third of this function's cold time).
  const gemmWhere = { q, cc: r.cc, peak16: r.peak16, gfx: rocmGfx(r), aiter: t.rocmAiter };
  return {
    weightGpu,
    kvGpu: kv * (1 - h.layers),
    host,
    hostExperts: expertRead * wb * moved,
    hostExpertsAll: m.expertWeightsPerLayer * m.experts * m.moeLayers * wb * moved,
    linearRead,
    wb: wbStored,
    q,
    expertGpu,
    fp32Gemm: dequantizes && cb === 4,
    issueBytes,
    moeIssueBytes,
    paddedFlops: read.paddedFlops * (1 - h.experts),
    rate,
    // Passes of row blocks where the kernel's sm80PeakShare holds its large-M rate (m-blocks.ts).
    mBlocks:
      k?.mBlocks && r.cc === 8 && namedPeakShare(q, r, t.quantFormat) !== undefined
        ? k.mBlocks
        : null,
    prefillRate: blockFp8GemmRate(m.arch, o, fw, gemmWhere, rate),
    prefillExpertRate: prefillExpertGemmRate(m, o, fw, gemmWhere, rate),
    aiter: t.rocmAiter,
    fp32Router: fp32RouterSecondsPerRow(m, fw, t, r),
  };
}

/** The kernel family a step's quantized weights run through on this GPU (null: 16-bit or unknown weights). */
export function stepKernel(o: EstimateOptions, t: TimeOptions, r: GpuRates): QuantFormat | null {
  const q0 = t.quantFormat ?? defaultQuantFormat(o);
  return q0 !== null && o.weights in QUANT_FORMATS_FOR ? kernelOn(q0, o, r) : null;
}

/**
 * FLOP/s of the step's GEMMs: the W8A8 tensor-core rate where the kernel multiplies in 8 bits (the GPU's own
 * achieved 8-bit rate where the time model has one, GpuRates.gemm8).
 */
export function gemmRate(q: QuantFormat | null, r: GpuRates, named: QuantFormat | null): number {
  if (q === 'cutlass') return r.gemm8 ?? r.gemm16 * W8A8_SPEEDUP;
  const share = namedPeakShare(q, r, named);
  return share !== undefined ? Math.min(r.gemm16, share * r.peak16) : r.gemm16;
}

/**
 * The share of the 16-bit peak the run's named kernel holds its large-M GEMMs to on this card: without Hopper's
 * wgmma on compute capability 9.x (KernelFamily.hopperPeakShare), or below an 8.0 card's own mma.sync peak
 * (KernelFamily.sm80PeakShare); undefined where the kernel is not named or has no share there.
 */
function namedPeakShare(
  q: QuantFormat | null,
  r: GpuRates,
  named: QuantFormat | null,
): number | undefined {
  const k = q !== null && q === named ? KERNELS[q] : undefined;
  if (k === undefined) return undefined;
  return r.cc >= 9 && r.cc < 10 ? k.hopperPeakShare : r.cc === 8 ? k.sm80PeakShare : undefined;
}

/** A prefill: its GPU work and eager passes, or an eager prefill's host launches where longer. */
export function prefillTime(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tr: Traffic,
  tokens: number,
  seqs: number,
  t?: TimeOptions,
): number {
  return Math.max(
    prefillGpuSeconds(m, o, r, tr, tokens, seqs) +
      eagerPrefillPassSeconds(m, o, r, tokens, seqs, t),
    eagerPrefillHostSeconds(m, o, r.cc, tokens * seqs, t, o, rocmGfx(r)),
  );
}

/**
 * Prefill of `seqs` prompts of `tokens` tokens each: compute-bound GEMMs and attention at the prompt's shape, one read
 * of the weights, (llama.cpp) the host layers' weights copied over PCIe once per ubatch, and under TP a decode step's
 * all-reduces of every prompt token x hidden (Megatron-LM §3, arXiv 1909.08053: one after attention, one after the MLP;
 * a vocabulary-parallel engine's embedding too) and the gather of each prompt's last-token logits, not overlapped.
 */
export function prefillGpuSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tr: Traffic,
  tokens: number,
  seqs: number,
): number {
  const attnFlops = prefillAttentionFlops(m, o, r, tokens, seqs);
  const attnRate = prefillAttentionRate(o, r, tr.q);
  const flops =
    (2 * (m.active - embedOnly(m)) * tokens * seqs + m.recurrentFlopsPerToken * tokens * seqs) /
      o.tp +
    (attnRate > 0 ? 0 : attnFlops);
  // A prefill with layers in host RAM round-trips them once per ubatch (FrameworkProfile.ubatch).
  const ub = FRAMEWORKS[o.framework].ubatch;
  const ubatches = ub !== undefined ? Math.ceil((tokens * seqs) / ub) : 0;
  const rate = tr.prefillRate;
  // The routed experts' grouped GEMMs tile the routed rows against one expert's width on this GPU (its share
  // under TP), as a training step's do (train-work.ts moeWork); the rest at the model's width.
  const expertFlops = prefillExpertFlops(m, o, tokens * seqs);
  const expertWidth = m.expertFfn / ((o.ep ?? 1) > 1 ? 1 : o.tp);
  // A dense model's linears through a kernel that tiles its rows: its passes (linearPasses), less the one read of
  // the weights added below; otherwise the FLOPs at the rate, shape-scaled.
  const rows = tokens * seqs;
  const read = prefillWeightSeconds(o, r, tr);
  const passes = expertFlops === 0 ? linearPasses(m, o, tr, read) : null;
  const dense = passes
    ? passes(rows) -
      read +
      (attnRate > 0 ? 0 : attnFlops / (rate * shapeFactor(rows, m.hidden / o.tp)))
    : (flops - expertFlops) / (rate * shapeFactor(rows, m.hidden / o.tp));
  return (
    dense +
    (expertFlops > 0
      ? expertFlops / (tr.prefillExpertRate * shapeFactor(tokens * seqs * m.topK, expertWidth))
      : 0) +
    (attnRate > 0 ? attnFlops / attnRate : 0) +
    read +
    (ubatches * (tr.host + tr.hostExpertsAll * usedExperts(m, ub, tokens * seqs))) / r.host +
    decodeTpSeconds(m, o, tokens * seqs, r, undefined, seqs) +
    (tr.fp32Router ?? 0) * tokens * seqs
  );
}

/**
 * The share of a layer's experts one prefill ubatch routes to, E(1-(1-k/E)^n) of E for its n tokens: what
 * ggml's scheduler copies of host-held experts to the GPU per ubatch, "copying only the experts that are used"
 * (ggml_backend_sched_compute_splits, ggml-org/llama.cpp@0054c01370c2105fa7ba68c16c5e8ff5f55e430d
 * ggml/src/ggml-backend.cpp).
 */
function usedExperts(m: ModelFacts, ub: number | undefined, tokens: number): number {
  if (m.experts <= 1) return 1;
  const n = Math.min(ub ?? tokens, tokens);
  return 1 - Math.pow(1 - m.topK / m.experts, n);
}

/** A prefill's one read of the linear weights on a GPU. */
export function prefillWeightSeconds(o: EstimateOptions, r: GpuRates, tr: Traffic): number {
  return (tr.linearRead * tr.wb) / o.tp / r.mem;
}

/** A step's weight read on the GPU: its bytes at the family's rate, or an arithmetic-bound mat-vec's SM work
 * (KernelFamily.issue), or the rest's read and an arithmetic-bound MoE's CU work (KernelFamily.rocmMoeIssue),
 * whichever takes longer. */
function weightSeconds(tr: Traffic, r: GpuRates): number {
  const k = tr.q ? KERNELS[tr.q] : undefined;
  const iss = k?.issue;
  const issueT = iss && r.smCycles ? tr.issueBytes / (r.smCycles * iss.bytesPerSmCycle) : 0;
  const mi = k?.rocmMoeIssue;
  const moeT =
    mi && r.cuCycles && tr.moeIssueBytes > 0
      ? (tr.weightGpu - tr.expertGpu) / r.mem + tr.moeIssueBytes / (r.cuCycles * mi.bytesPerCuCycle)
      : 0;
  return Math.max(tr.weightGpu / r.mem, issueT, moeT);
}

/** Layers and experts kept in host RAM, read at host bandwidth every step: the decode-host phase. */
function hostLayerSeconds(tr: Traffic, B: number, r: GpuRates): number {
  return tr.host / HOST_DECODE_BYTES_PER_S + hostExpertSeconds(tr, B, r);
}

/**
 * A llama.cpp build before ggml-org/llama.cpp#10318 multiplies F16 weights at batch 1 in dmmv, whose last wave of rows per
 * matrix is latency-bound (matvec-tail.ts). Only where the timing says so (TimeOptions.f16MatVec), on one GPU
 * holding every layer, for a dense model.
 */
function dmmvTail(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  tr: Traffic,
): number {
  const on =
    t.f16MatVec === 'dmmv' &&
    FRAMEWORKS[o.framework].dmmvF16 === true &&
    o.weights === 'fp16' &&
    o.batch === 1 &&
    o.tp === 1 &&
    m.experts <= 1 &&
    tr.host === 0;
  return on && r.dmmv ? dmmvTailSeconds(stepMatVecs(m), r.mem, r.dmmv.slots, r.dmmv.latency) : 0;
}

/**
 * A step's MoE layers beyond their bytes and kernel gaps: the fused-expert call's fixed latency at small batch
 * (moeCallSeconds; AITER's K-loop floor where its block-FP8 MoE runs, aiter-moe.ts) and, for 16-bit experts, the GEMMs' K-loop chains where they outlast the bytes
 * (fusedMoeChainSeconds), the launch grid's early-exiting programs and the default tiles (moe-grid.ts tritonMoeSeconds).
 */
function moeLayersSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  tr: Traffic,
): number {
  const fw = FRAMEWORKS[o.framework];
  const layerBytes = tr.expertGpu / m.moeLayers;
  // The call's latency fades as its expert GEMMs lengthen: their bytes at the bandwidth, or an arithmetic-bound MoE's
  // CU work where that is longer (weightSeconds), so a step whose GEMMs keep one length keeps its latency.
  const mi = tr.q ? KERNELS[tr.q].rocmMoeIssue : undefined;
  const issue =
    mi && r.cuCycles && tr.moeIssueBytes > 0
      ? tr.moeIssueBytes / (r.cuCycles * mi.bytesPerCuCycle) / m.moeLayers
      : 0;
  const fp4 = tr.q === 'cutlass' ? nativeFp4(o.weights) : null;
  const latency = moeCallLatency(fw, r.cc, fp4, trtllmMoeBlockFp8(m, o, r.cc, t));
  // AITER's block-FP8 fused MoE on its ROCm targets: its K-loop floor in place of that latency (aiter-moe.ts).
  const aiter = aiterMoeSeconds(m, o, t, r, { w8a8: tr.q === 'cutlass', layerBytes });
  const call = aiter ?? moeCallSeconds(latency, m.moeLayers, Math.max(layerBytes / r.mem, issue));
  // The Triton fused_moe K-loop chain, where the engine runs its 16-bit experts through that kernel.
  const triton = tr.q === null && !trtllmMoe16(m, o, r.cc, t);
  return call + tritonMoeSeconds(m, o, t, r, layerBytes, triton);
}

/** A decode step's seconds and the figures decodeStep's phases and bound are made of. */
export interface StepFigures {
  step: number;
  /** The step's linears' and attention's seconds (stepCore), and their longer of memory and compute. */
  sc: ReturnType<typeof stepCore>;
  /** The tensor-parallel all-reduces' seconds. */
  tpT: number;
  tr: Traffic;
}

/**
 * One decode step of the options' batch at context `ctx`, without its phases: what decodeStep reports is made
 * from these (a speculative verify pass reads them alone: speculative.ts verifySeconds).
 */
export function decodeStepFigures(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx: number,
): StepFigures {
  const B = o.batch;
  const tp = o.tp;
  const tr = decodeTraffic(m, o, t, r, B, ctx);
  const weightT = weightSeconds(tr, r) + dmmvTail(m, o, t, r, tr) + mmvqColumnSeconds(tr, r, B);
  const fw = FRAMEWORKS[o.framework];
  // The linears' kernels, then each layer's attention kernel at its backend's KV read rate (decode-attention.ts).
  const sc = stepCore(m, fw, r, tr, {
    batch: B,
    tp,
    ctx,
    weightSeconds: weightT,
    kvBlock: o.kvBlockSize,
    unsplitLayers: unsplitTritonLayers(m, fw, t, { cc: r.cc, rows: B, tp }),
    release: { version: t.engineVersion, v0: t.v0Scheduler === true, backend: t.attentionBackend }, // and the backend named
    weights: o.weights, // the routed experts' GEMM rate (fp4-bf16-moe.ts)
    compiled: o.compile, // a compiled decode's cache is preallocated (transformers' StaticCache, gpt-fast's KVCache)
    tritonMoe: decodeTritonMoe(m, o, t, r, { batch: B, q: tr.q }), // padded rows, rate (moe-pad-rows.ts)
  });
  const expertT = tr.expertGpu / r.mem;
  const host = decodeHost(m, o, t, tr.q, r.smClock, expertT, r.cc, rocmGfx(r), r.apple);
  const tpT = decodeTpSeconds(m, o, B, r, t);
  const loop = t.decodeOnly ? 0 : 1; // host-RAM layers, then the server loop's work (none timing llama-bench alone)
  const v0 = v0HostSeconds(fw, t, B, o.pp); // vLLM V0: host work in series, and beside the forward (v0-host.ts)
  const hostT =
    hostLayerSeconds(tr, B, r) +
    loop * (fw.stepHostSeconds ?? 0) +
    (t.serialScheduler ? (fw.serialStepHostSeconds ?? 0) + serialSeqSeconds(m, fw, t) * B : 0) +
    v0.serial +
    loop * (fw.seqHostSeconds ?? 0) * B;
  // The MoE layers' fused-expert calls at small batch, beyond their bytes and gaps (moe-call.ts).
  const moeT = m.moeLayers > 0 ? moeLayersSeconds(m, o, t, r, tr) : 0;
  // Linears whose kernels at decode M outlast their bytes and FLOPs: block-scaled FP8 (block-fp8.ts) and, on ROCm, those
  // the engine hands to hipBLASLt (rocm-gemm.ts).
  const cut = KERNELS.cutlass;
  const eff8 = [cut.eff8, cut.rocm?.eff8 ?? 1] as const;
  const linT = linearKernelSeconds(m.arch, o, fw, r, tr, eff8, m.experts, t.engineVersion);
  // A build whose MUL_MAT_ID synchronized once per expert slot and projection (TimeOptions.mulMatIdSync): each op's
  // host round trip, in series with the GPU (the engine's expertIdsSyncSeconds).
  const idsSyncT = t.mulMatIdSync
    ? m.moeLayers * (m.gated ? 3 : 2) * m.topK * (fw.expertIdsSyncSeconds ?? 0)
    : 0;
  // The GPU's share of the step; under piecewise CUDA graphs the host issues each layer's attention calls while the
  // GPU runs, and the step takes the longer of the two; the GPU idles at each split besides (piecewise.ts).
  const pw = piecewiseAttentionSeconds(m, fw, t, {
    cc: r.cc,
    rows: B,
    tp,
    graphKernels: host.kernels,
  });
  // The server's sampler after the forward, over every running sequence's logits (sampler-step.ts).
  const smpT = loop * samplerStepSeconds(m, fw, B, r);
  const gpuT =
    Math.max(sc.core, host.dispatch) + host.gaps + moeT + linT + idsSyncT + tpT + pw.gpu + smpT;
  // An overlapped scheduler's own step work, or an eager step's launches, bound the step from below.
  const loopHost = overlappedHostSeconds(m, o, t, r, loop);
  const step = Math.max(gpuT, pw.host + loopHost, v0.beside) + host.fixed + hostT;
  return { step, sc, tpT, tr };
}

export function decodeStep(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  detail = true,
  ctx = o.seq,
  prompt = ctx,
): DecodeTime {
  const B = o.batch;
  const { step, sc, tpT, tr } = decodeStepFigures(m, o, t, r, ctx);
  const { core, flops } = sc;
  const overhead = step - core - tpT; // the host's share the GPU's work does not hide
  if (!detail)
    return {
      stepSeconds: step,
      tokensPerSecond: B / step,
      prefillSeconds: 0,
      phases: EMPTY,
      bound: 'memory',
      flopsPerGpu: flops,
    };
  const phases = new Float64Array(DECODE_PHASES.length);
  phases[DPH['decode-weights']] = sc.linear;
  phases[DPH['decode-kv']] = sc.attention;
  phases[DPH['tensor-parallel']] = tpT;
  phases[DPH['decode-host']] = hostLayerSeconds(tr, B, r);
  phases[DPH.overhead] = overhead - phases[DPH['decode-host']]!;
  // The batch's prefill: its B prompts of `prompt` tokens each (a serving estimate's prompt, not its whole context).
  const prefill = prefillTime(m, o, r, tr, prompt, B, t);
  phases[DPH.prefill] = prefill;
  return {
    stepSeconds: step,
    tokensPerSecond: B / step,
    prefillSeconds: prefill,
    phases,
    bound: argmaxBound(sc.compute, sc.memory, tpT, overhead),
    flopsPerGpu: flops,
  };
}
