/**
 * llama.cpp's quantized mat-vec at more than one column. `mul_mat_vec_q` (ggml/src/ggml-cuda/mmvq.cu) runs a GGUF
 * matrix at 1-8 columns (MMVQ_MAX_BATCH_SIZE) and calls the block dot product once per column and row of its tile (the
 * `j < ncols_dst` loop), so each further column adds its dot products to every weight block it loads. NVIDIA's launch
 * table gives a block 4 warps at 1-4 columns and 2 at 5-8, 1 row at one column and 2 above (calc_nwarps,
 * calc_rows_per_block, ggml-org/llama.cpp@000f4625abc4efd46ee160e4473ffe0da004082e mmvq.cu): with half the warps
 * resident from 5 columns the added work stays on the critical path of each block's loads, and no issue, dp4a or load
 * throughput bound reaches it (docs/time-model.md "MMVQ's columns"). The added time is taken from a measurement of the
 * kernel's growth with the columns on a GA102 card, as SM cycles a weight byte (GpuRates.smCycles), and added to the
 * one-column read (KernelFamily.issue counts the unpacking once a step).
 */
import type { GpuRates } from './hardware.js';

/**
 * SM cycles a weight byte that 2, 3, ... 8 columns add over one, on compute capability 8.6 (GA10x: 16 resident blocks
 * and 48 warps an SM, 128 FP32 lanes). From slaren's RTX 3090 Ti table in ggml-org/llama.cpp#5434 (the pull request
 * that tiled mul_mat_vec_q into the 1-2 row, 4-2 warp launch shapes above; LLaMA 7B Q4_0 at tg1 and pp2-pp8 with the
 * PR's build): 133.54, 260.18, 381.09, 489.20, 504.63, 577.27, 623.50, 691.22 t/s, i.e. a step of n tokens takes
 * 0.20, 0.38, 0.69, 2.42, 2.91, 3.74, 4.09 ms more than one token's 7.49 ms; over the 3.83 GB the step's mat-vecs
 * work through (LLaMA 2 7B's linears and head at Q4_0's 18 bytes a 32-weight block) and the card's 84 SMs x 1.86 GHz.
 */
export const GA10X_EXTRA_CYCLES_PER_BYTE: readonly number[] = [
  0.0081, 0.0157, 0.0281, 0.0988, 0.1186, 0.1526, 0.1667,
]; // columns 2..8, ggml-org/llama.cpp#5434 (slaren's RTX 3090 Ti table)

/**
 * ggml's Metal backend at 2-8 columns (kernel_mul_mv_ext_*_r1_N, ggml-org/llama.cpp#10581 "Improve Metal performance for
 * small batch sizes (<= 8)"): each added column re-reads and dots the activation against every weight row it loads
 * ("its cost grows linearly with ne11", ggml-org/llama.cpp#29110), so a step's mat-vecs take longer with the columns
 * though the weights are read once. The time 2, 3, ... 8 columns add over one, as a share of the one-column read of the
 * step's mat-vec bytes at the chip's stream rate, from ggml-org/llama.cpp#10581's table of its own build (qwen2 7B Q8_0, 7.54 GiB:
 * 70.41, 126.66, 163.08, 200.40, 207.24, 210.91, 229.20, 260.76 t/s at pp1-pp8) on the author's Apple M2 Ultra
 * (calibration/assumed.json): 1.59, 4.19, 5.76, 9.92, 14.25, 16.34 and 16.48 ms over the pp1 step's 14.20, against
 * 7.51 GB of mat-vecs at 680 GB/s (11.05 ms).
 */
export const METAL_EXTRA_READS: readonly number[] = [
  0.1437, 0.3795, 0.5211, 0.8982, 1.2894, 1.4788, 1.4914,
]; // columns 2..8, ggml-org/llama.cpp#10581 (Apple M2 Ultra)

/** The compute capability that table holds for: GA10x's SM, the RTX 3090 Ti's. */
const GA10X_CC = 8.6; // GA102, https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf

/**
 * Seconds a decode step's quantized mat-vecs take beyond one column's at `columns` columns (2-8) on a card of the
 * table's SM: the step's mat-vec bytes (KernelFamily.issue's, `issueBytes`) less its routed experts' share (a MoE's
 * per-slot mat-vec multiplies one token a block up to 4 tokens, MMQ above: moe-tile.ts), at the table's added cycles.
 * Above 8 columns MMQ runs the matrices, and ggml hands them to MMVQ up to 8 because MMVQ is the faster there
 * (MMVQ_MAX_BATCH_SIZE, "Max. batch size for which to use MMVQ kernels", ggml/src/ggml-cuda/mmvq.cuh; the bound
 * ggml-org/llama.cpp#5434 raised to 8 with the tiling that made MMVQ win up to it): MMQ at 8 columns takes at least
 * MMVQ's 8, and MMQ's narrowest tile widens from 8 to 16 columns past 8 (mmq.cuh mmq_x granularity 8), so a step of
 * more columns keeps the 8 columns' added time (`issueBytes` there already counts MMQ's column tiles).
 * 0 where the step runs no issue-bound mat-vec, on other cards, or at one column.
 */
export function mmvqColumnSeconds(
  tr: { issueBytes: number; expertGpu: number; weightGpu: number },
  r: Pick<GpuRates, 'cc' | 'smCycles' | 'apple' | 'mem'>,
  columns: number,
): number {
  const widest = GA10X_EXTRA_CYCLES_PER_BYTE.length + 1;
  const dense = tr.weightGpu > 0 ? Math.max(0, 1 - tr.expertGpu / tr.weightGpu) : 1;
  // On Metal (the routed experts run kernel_mul_mv_id, not counted): the added share of the one-column read.
  const metal = r.apple === true ? METAL_EXTRA_READS[Math.min(columns, widest) - 2] : undefined;
  if (metal !== undefined && tr.issueBytes > 0) return (tr.issueBytes * dense * metal) / r.mem;
  const extra = GA10X_EXTRA_CYCLES_PER_BYTE[Math.min(columns, widest) - 2];
  if (extra === undefined || tr.issueBytes <= 0 || r.cc !== GA10X_CC || !r.smCycles) return 0;
  return (tr.issueBytes * dense * extra) / r.smCycles;
}
