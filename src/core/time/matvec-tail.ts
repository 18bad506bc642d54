/**
 * llama.cpp's pre-2024-11 F16 mat-vec kernel (`dequantize_mul_mat_vec<1, 1, convert_f16>`, "dmmv") runs one
 * 32-thread block per weight row, each thread reading 4 B per loop trip (ggerganov/llama.cpp ggml-cuda/dmmv.cu at
 * 08d8a6b5286afdd9ff930c6a08abba8abef78902: block_dims(WARP_SIZE, GGML_CUDA_MMV_Y = 1), iter_stride
 * 2 * GGML_CUDA_DMMV_X = 64). A matrix of R rows fills the GPU's resident block slots in waves; full waves read at
 * the bandwidth, but the last, partial wave has too few rows in flight to hide DRAM latency: each of its rows takes
 * its chain of dependent trips, trips x latency (Little's law: rate <= bytes in flight / latency). HBM cards read a
 * wave fastest, so the tail weighs most there. Builds from ggml-org/llama.cpp#10318 on use mmv.cu's 256-thread rows: no such tail.
 */
import type { Gpu } from '../../schema/gpu.js';

/** A matrix-vector product: `rows` output rows of `cols` 16-bit inputs, done `count` times a step. */
export interface MatVec {
  rows: number;
  cols: number;
  count: number;
}

// Streaming multiprocessors per card (NVIDIA whitepapers: A100 108, H100 PCIe 114, GA102 RTX 3090 82 /
// RTX 3090 Ti 84 / RTX A6000 84 / RTX 3080 68, AD102 RTX 4090 128 / RTX 6000 Ada 142;
// https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf,
// https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper,
// https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf). The A800 SXM4 and H800 SXM5
// are the A100 SXM4's GA100 and the H100 SXM5's GH100 with NVLink (and the H800's FP64) capped, the same SMs
// (catalogs/gpus/a800-80gb-sxm.json and h800-sxm.json; nvidia-smi and the engines' tuned-config file names call them
// NVIDIA_A800-SXM4-80GB and NVIDIA_H800).
const SMS: Readonly<Record<string, number>> = {
  'a100-40gb-pcie': 108,
  'a100-40gb-sxm': 108,
  'a100-80gb-pcie': 108,
  'a100-80gb-sxm': 108,
  'a800-80gb-sxm': 108,
  'h100-pcie': 114,
  'h100-sxm': 132,
  'h800-sxm': 132,
  'rtx-3080-10gb': 68,
  'rtx-3090': 82,
  'rtx-3090-ti': 84,
  'rtx-a6000': 84,
  'rtx-4090': 128,
  'rtx-6000-ada': 142,
};

// Resident blocks per SM (one-warp blocks: the block limit binds before the warp limit) by compute capability:
// 8.0 and 9.0: 32, 8.6: 16, 8.9: 24 (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability", https://docs.nvidia.com/cuda/cuda-c-programming-guide/#features-and-technical-specifications).
const BLOCKS_PER_SM: Readonly<Record<string, number>> = {
  '8.0': 32,
  '8.6': 16,
  '8.9': 24,
  '9.0': 32,
};

// DRAM latency, single-warp pointer chase over a buffer far beyond L2 (te42kyfo/gpu-benches): A100 80GB 572
// cycles at 1410 MHz = 406 ns (cuda-latency/a100_80.txt at 2f9158840909a373a52a7ec7b0acddbc2ccf10b0); H100 PCIe
// 658 cycles at 1755 MHz = 375 ns (gpu-latency/h100_pcie.txt at a7dc559cc5a1d09e62b6b0fbb99ee165039acba4); Ada
// from the L40 (AD102): 632 cycles at 2490 MHz = 254 ns (gpu-latency/l40.txt at
// 5ff059f8625a1e14148f1c909f513625232c41aa). GA102 (8.6) has no CUDA figure found: Ampere's, the A100's.
// Blackwell from a pointer chase over 1.5 GB on a B200 (markdewing/AI_kernels latency/data/b200.dat at
// b6bc56340285903591486f199cf7b257358719a0: 859 cycles; the same suite reads an H100 SXM at 703, near the 658 above)
// at the B200's clock from its catalog FP32 rate, 80 TFLOPS over 148 SMs x 128 lanes x 2 = 2.11 GHz: 407 ns (148 SMs:
// https://chipsandcheese.com/p/nvidias-b200-keeping-the-cuda-juggernaut).
const DRAM_LATENCY_S: Readonly<Record<string, number>> = {
  '8.0': 406e-9,
  '8.6': 406e-9,
  '8.9': 254e-9,
  '9.0': 375e-9,
  '10.0': 407e-9,
};

// An AMD GPU's HBM round trip, one load's latency from issue to use: about 0.5 µs on an MI300X (Kog AI's measurements
// for its MI300X decode kernel, https://blog.kog.ai/building-a-single-kernel-latency-optimized-llm-inference-engine-on-amd-mi300x-gpus,
// tabulated at https://dev.to/creeta/kog-hits-3k-ts-on-mi300x-no-kernel-switches-test-it-now-55dh). No MI355X figure was
// found: CDNA 4 keeps CDNA 3's XCD, Infinity Cache and HBM layout, and the same latency is taken.
export const CDNA_HBM_LATENCY_S = 0.5e-6; // MI300X, Kog AI (blog.kog.ai, May 2026)

/** DRAM latency of a compute capability (GpuRates.cc) this covers, seconds; undefined elsewhere. */
export function dramLatencySeconds(cc: number): number | undefined {
  return DRAM_LATENCY_S[cc.toFixed(1)];
}

// One trip covers 2 * GGML_CUDA_DMMV_X = 64 columns (ggerganov/llama.cpp ggml-cuda/dmmv.cu @08d8a6b5).
const DMMV_COLS_PER_TRIP = 64;
// The trip loop has a runtime bound; nvcc unrolls it by 4 with the 4 trips' loads independent (nvcc 13.0 -O3
// -arch=sm_80 PTX of that kernel: 16 ld.global.nc per unrolled body; the rows' CUDA 11.8/12.1 SASS unchecked), so
// a row's latency chain is cols / 64 / 4 dependent round trips. Assumed (calibration/assumed.json).
const DMMV_UNROLL = 4;

/** Block slots and DRAM latency of a card this covers, or null (no tail term). */
export function dmmvResidency(g: Gpu): { slots: number; latency: number } | null {
  const sms = SMS[g.id];
  const cc = g.computeCapability ?? '';
  const blocks = BLOCKS_PER_SM[cc];
  const latency = DRAM_LATENCY_S[cc];
  if (sms === undefined || blocks === undefined || latency === undefined) return null;
  return { slots: sms * blocks, latency };
}

/**
 * Seconds a step's dmmv mat-vecs take beyond their bytes at `bw` B/s: per matrix, the partial last wave runs at
 * the longer of its bytes at the bandwidth and one row's latency chain (a full wave is bandwidth-bound: its
 * resident rows keep slots x 512 B in flight, > bw x latency on every card covered).
 */
export function dmmvTailSeconds(
  mats: readonly MatVec[],
  bw: number,
  slots: number,
  latency: number,
): number {
  let extra = 0;
  for (const { rows, cols, count } of mats) {
    const rem = rows % slots;
    if (rem === 0) continue;
    const rowBytes = 2 * cols;
    const chain = (cols / DMMV_COLS_PER_TRIP / DMMV_UNROLL) * latency;
    extra += count * Math.max(0, chain - (rem * rowBytes) / bw);
  }
  return extra;
}
