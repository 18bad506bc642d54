/**
 * What torch._grouped_mm's CUTLASS kernel sustains on datacenter Blackwell (compute capability 10.x). PyTorch builds its
 * SM100 bf16 grouped GEMM from the Hopper one with a fixed tile config that ignores the problem's shape: at the first
 * SM100 support (pytorch/pytorch#156203, aten/src/ATen/native/cuda/GroupMM.cu @06c0cf0
 * `dispatch_bf16_grouped_kernel_on_tile_size`) every sm10x call takes the 1-SM schedule
 * (`KernelPtrArrayTmaWarpSpecialized1SmSm100`, the 2-SM one commented out) with a 64 x 128 x 128 tile, where cuBLAS's
 * torch.mm picks shape-tuned 2-SM tiles. Its rate is read from torchao's MoE-training microbenchmarks on a B200
 * (pytorch/ao@0b1bb117 torchao/prototype/moe_training/README.md "Microbenchmarks", torch 2.10.0a0+gitf6de195,
 * `benchmark_scaled_grouped_mm_dq.py --compile`, the `bf16_fwd_bwd_us` column): a 2D x 3D grouped GEMM of 128,000 rows
 * over G = 1, 2, 4, 8 groups, forward and both gradients (6 x M x N x K FLOPs), at Llama 4 Scout's expert shape
 * (N 8192, K 5120) and DeepSeek-V3's (N 2048, K 7168). Each time over the B200's 2,250 TFLOPS spec and the shape
 * factor train-step.ts gives the same GEMM (time/shape.ts, rows per group against N) is one share; the median of the
 * eight is 0.377, where the model holds the card's dense matmuls at 0.65 (hardware.ts GEMM_EFF_HOPPER) and torch.mm
 * reads 1.41-1.45 PFLOPS (pytorch/ao#2427). Hopper's grouped kernel reads at its dense rate (pytorch/pytorch#156203:
 * a 16 x 128,000 x 7168 x 7168 batch on an H200 in 298.7 ms, 0.71 of the 989 TFLOPS spec), so only 10.x is capped.
 */
import { median } from '../memory/calibration.js';
import type { GpuRates } from './hardware.js';
import { shapeFactor } from './shape.js';
import type { TrainWork } from './train-work.js';
import { groupedMmFallback } from './grouped-mm.js';

// The B200's dense bf16 spec (catalogs/gpus/b200.json; torchtitan's get_peak_flops, pytorch/torchtitan#2884).
const BENCH_B200_SPEC_FLOPS = 2250e12;
// The tables' M: 128,000 rows (https://github.com/pytorch/ao/blob/0b1bb117/torchao/prototype/moe_training/README.md).
const BENCH_ROWS = 128000;
// [N, K, groups, bf16 forward + backward µs]: the README's two Microbenchmarks tables.
const BENCH_B200_GROUPED_BF16: readonly (readonly [number, number, number, number])[] = [
  [8192, 5120, 1, 43140.2],
  [8192, 5120, 2, 39487.6],
  [8192, 5120, 4, 39189.2],
  [8192, 5120, 8, 37700.7],
  [2048, 7168, 1, 13064.8],
  [2048, 7168, 2, 14900.2],
  [2048, 7168, 4, 15823.6],
  [2048, 7168, 8, 14966.8],
];

/** Each benchmark's rate over the spec and its shape factor, the median: 0.377 (above). */
export const SM100_GROUPED_MM_PEAK_SHARE = median(
  BENCH_B200_GROUPED_BF16.map(
    ([n, k, g, us]) =>
      (6 * BENCH_ROWS * n * k) /
      (us * 1e-6) /
      (BENCH_B200_SPEC_FLOPS * shapeFactor(BENCH_ROWS / g, n)),
  ).sort((a, b) => a - b),
);

/**
 * FLOP/s of the routed experts' GEMMs where they are torch._grouped_mm calls on PyTorch's CUTLASS path (bf16 on 9.x or
 * 10.x, time/grouped-mm.ts): on 10.x the grouped kernel's share of the card's peak at the power limit, never above
 * the dense rate `base`; elsewhere `base`. The caller applies the experts' shape factor.
 */
export function groupedExpertRate(
  w: Pick<TrainWork, 'groupedMm' | 'groupedMmBf16'>,
  r: Pick<GpuRates, 'cc' | 'peak16'>,
  base: number,
): number {
  if (w.groupedMm.fwdCalls === 0 || groupedMmFallback(r.cc, w.groupedMmBf16)) return base;
  if (Math.floor(r.cc) !== 10) return base;
  return Math.min(base, r.peak16 * SM100_GROUPED_MM_PEAK_SHARE);
}
