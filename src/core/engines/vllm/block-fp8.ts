/**
 * vLLM's block-scaled FP8 linear at decode on Hopper (FrameworkProfile.blockFp8Linear; time/block-fp8.ts). A
 * checkpoint with `weight_block_size` runs `W8A8BlockFp8LinearOp`: the activations' per-token-group (1x128) FP8
 * quantization, then DeepGEMM's `fp8_gemm_nt` where the deep_gemm package is installed
 * (`should_use_deepgemm_for_fp8_linear`, vllm/utils/deep_gemm.py), else the CUTLASS SM90 blockwise GEMM (upstream
 * CUTLASS since https://github.com/vllm-project/vllm/pull/23280), else Triton. `pip install vllm` ships no
 * deep_gemm: the CUTLASS kernel is taken. On SM100 v0.11.0 takes CUTLASS's SM100 blockwise kernel
 * (cutlass_scaled_mm_supports_block_fp8): no `blackwell` entry, for want of a kernel table at DeepSeek's shapes
 * (time/block-fp8.ts blockFp8LinearFigures).
 *
 * sgl-project/sglang#5820's blockwise-GEMM benchmark (https://github.com/sgl-project/sglang/pull/5820, and sgl-project/sglang#5207's
 * earlier run for N=7168 K=16384, N=4608 / 3072 K=7168) times vLLM's CUTLASS kernel at DeepSeek-V3's shapes: flat
 * from M = 1 to 64-128 (mean over M = 1-64, µs): N=24576 K=7168 82.0; N=32768 K=512 16.3; N=3072 K=1536 14.6;
 * N=512 K=7168 20.7; N=7168 K=2304 18.6; N=7168 K=16384 90.8; N=4608 K=7168 45.9; N=3072 K=7168 45.6. The GPU is
 * not named beside the tables; DeepGEMM's column in them reads 176 MB in 58.6 µs, above an H100's 3.35 TB/s peak,
 * so an H200 (4.8 TB/s). Least squares of (time - the weight bytes at the modelled FP8 rate, 0.81 x 0.85 x
 * 4.8 TB/s) over those eight shapes against the K blocks: 9.3 µs + 0.37 µs per 128 of K. The K term is the GEMM's
 * serial main loop over K: at small M the grid has N/128 tiles, fewer than the SMs, so no split hides it.
 * For scale, vllm-project/vllm#23280 runs the CUTLASS kernel at N=2112 K=7168 on an H100 at 0.89 TFLOP/s at batch 1
 * (34 µs; the fit gives 9.3 + 20.7 + 6.6 = 36.6 µs with the bytes at the H100's modelled rate).
 *
 * At prefill M the kernel is compute-bound and slower than a 16-bit GEMM of the same shape: vllm-project/vllm#23280's
 * table for N=2112 K=7168 on an "NVIDIA H100 80GB HBM3" (the upstream CUTLASS kernel, as v0.11.0 ships it) reads
 * 456.9 TFLOP/s at M = 4096 and 489.7 at M = 8192 (the H100 chunk: 8192 batched tokens), where torch's bf16 GEMM reads
 * 715.8 and 666.4 and vLLM's Triton block-FP8 kernel, the path of the fused-MoE experts, 403.0 and 406.5. 489.7 of
 * the H100's 1978.9 dense 8-bit TFLOPS is 0.247 (`peakShare8`): every GEMM of the step runs at no more than that, the
 * routed experts' Triton kernel included (its 406.5 is below it).
 *
 * On gfx942 (MI300X, MI325X) with AITER off (`VLLM_ROCM_USE_AITER`, off by default in vllm/envs.py) a block-scaled
 * checkpoint runs neither hipBLASLt nor CUTLASS: `W8A8BlockFp8LinearOp` dispatches its linears to Triton's
 * `w8a8_triton_block_scaled_mm` (the CUTLASS branch is CUDA-only, the AITER branch needs AITER on;
 * quantization/utils/fp8_utils.py at vllm-project/vllm@007d50058a06dec0f82472d63c819244d460c40d, and
 * `apply_w8a8_block_fp8_linear` of mid-2025 alike), and its routed experts to the Triton fused_moe with
 * `use_fp8_w8a8` and the block shape. No gfx942 timing of vLLM's own kernels was found; the one Triton blockwise FP8
 * GEMM timed on gfx942 is AMD-AGI/Primus-Turbo#339's MI300X report (`gemm_fp8_blockwise_triton_benchmark`, the same
 * 1x128 activation and 128x128 weight scales, 84 training shapes): 627.96 TFLOPS forward on average, 0.240 of the
 * 2614.9 TFLOPS dense 8-bit peak, where hipBLASLt's per-tensor FP8 GEMM reads 907 (time/hardware.ts). That kernel is
 * tiled for gfx942 (128x128x128, kpack 2); vLLM's default tiles without a tuned file (64x128x128, 4 warps, 2 stages)
 * are no faster, so a prefill's GEMMs run at no more than that share there (`rocmPrefill`, an upper bound).
 *
 * Those default tiles run below a tuned file's: the one timing of vLLM's own kernel at both, on one H100 by the same
 * author and script (`benchmark_w8a8_block_fp8`, N=2112 K=7168), reads 305.14 TFLOP/s at M = 4096 with the default
 * tiles (vllm-project/vllm#23939, "Before": no `N=2112,K=7168,device_name=NVIDIA_H100_80GB_HBM3` file) and 402.98 with
 * the tuned file (vllm-project/vllm#23280's Triton column), 0.757; 354.5 against 406.5 at M = 8192-16384. The fused-MoE
 * tuning PRs agree in size at prefill M (vllm-project/vllm#44830, H100 block FP8: tuned about 25% faster at 96-512
 * tokens; vllm-project/vllm#45142, H20-3e FP8: 1.5x). No gfx942 timing of either vLLM kernel at both tiles was found:
 * the H100 ratio at M = 4096 (a prefill chunk's per-expert rows are of that order) is carried to gfx942 as an
 * assumption (`defaultTileShare`, calibration/assumed.json), the model pricing default tiles throughout (no catalog
 * of tuned files: docs/time-model.md, "Tuned or default fused_moe tiles").
 *
 * On Ada (cc 8.9: L4, L40S, RTX 40xx) no blockwise CUTLASS or DeepGEMM kernel runs (`CUTLASS_BLOCK_FP8_SUPPORTED`,
 * w8a8_utils.py: SM90 and SM100 builds; DeepGEMM needs SM90): the linears run Triton's `w8a8_triton_block_scaled_mm`
 * and the routed experts the Triton fused_moe with `use_fp8_w8a8` and the block shape, both at their default tiles
 * where the wheel ships no tuned file for the card (none for the L40S at E=128, N=768 before that PR). The one timing of
 * either on an Ada card found is vllm-project/vllm#53710's `benchmark_moe.py` run on one L40S (Triton 3.6.0; the
 * `E=128, N=768` FP8 W8A8 shape of Qwen3-VL-30B-A3B's block-scaled checkpoint, 8 experts a token): default config
 * 3195.68 µs at M = 8192 tokens, 2 x 8192 x 8 x (1536 x 2048 + 2048 x 768) = 618.5 GFLOP, 193.5 TFLOP/s, 0.264 of the
 * L40S's 733 TFLOPS dense 8-bit peak (`ada.moePeakShare8`), the large-M rate as Hopper's share is taken (it reads 161.4
 * at M = 4096 and 112.4 at M = 2048). vllm-project/vllm#53819 agrees in size (E=256, N=512 on one L40S, default config
 * 2926.05 µs at M = 8192: 140.9 TFLOP/s, 0.192). No Ada timing of `w8a8_triton_block_scaled_mm` at prefill M was found:
 * the linears keep the W8A8 rate (a dense block-FP8 burst on an L40S, vllm-project/vllm#29217's Qwen3-VL-32B, already
 * reads slower than measured at that rate).
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';
import { TRITON_BLOCK_FP8_MOE_ADA_SHARE8 } from '../moe-call.js';

export const VLLM_BLOCK_FP8_LINEAR: NonNullable<FrameworkProfile['blockFp8Linear']> = {
  hopper: {
    baseSeconds: 9.3e-6, // CUTLASS SM90 blockwise GEMM, sgl-project/sglang#5820 / sgl-project/sglang#5207 tables (fit above)
    perKBlockSeconds: 0.37e-6, // per 128 of K, same fit
    peakShare8: 0.247, // 489.7 of 1978.9 TFLOPS at M = 8192 on an H100, vllm-project/vllm#23280 (note above)
  },
  rocmPrefill: {
    targets: ['gfx942'], // MI300X / MI325X; AMD-AGI/Primus-Turbo#339 timed its Triton kernel on an MI300X
    peakShare8: 627.96 / 2614.9, // Triton blockwise FP8 GEMM forward, MI300X, AMD-AGI/Primus-Turbo#339 (note above)
    // vLLM's w8a8_block_fp8_matmul at M = 4096, N=2112 K=7168 on one H100: default tiles 305.14 TFLOP/s
    // (vllm-project/vllm#23939 "Before"), tuned 402.98 (vllm-project/vllm#23280); carried to gfx942 (calibration/assumed.json)
    defaultTileShare: 305.14 / 402.98,
  },
  // Triton fused_moe, block FP8, default config, M = 8192 on one L40S (engines/moe-call.ts)
  ada: { moePeakShare8: TRITON_BLOCK_FP8_MOE_ADA_SHARE8 },
};
