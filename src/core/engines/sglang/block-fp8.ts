/**
 * SGLang's block-scaled FP8 linear at decode on Hopper and on gfx942 (FrameworkProfile.blockFp8Linear; time/block-fp8.ts).
 * `apply_w8a8_block_fp8_linear` quantizes the activations per token group (`per_token_group_quant_fp8`, 1x128) and
 * runs DeepGEMM's JIT `fp8_gemm_nt` on Hopper where the weight's N and K allow it (SGL_ENABLE_JIT_DEEPGEMM, on by
 * default on SM90; python/sglang/srt/layers/quantization/fp8_utils.py and deep_gemm_wrapper), else sgl-kernel's
 * CUTLASS blockwise GEMM. On Blackwell the same dispatch (v0.5.6.post1) runs DeepGEMM's SM100 kernel with the weight
 * scales requantized to UE8M0 (deep_gemm_wrapper DEEPGEMM_SCALE_UE8M0): no `blackwell` entry, for want of a kernel
 * table at DeepSeek's shapes (time/block-fp8.ts blockFp8LinearFigures).
 *
 * sgl-project/sglang#5820's blockwise-GEMM benchmark (https://github.com/sgl-project/sglang/pull/5820, and sgl-project/sglang#5207's
 * earlier run for N=7168 K=16384, N=4608 / 3072 K=7168) times DeepGEMM at DeepSeek-V3's shapes, flat from M = 1 to
 * 64-128 (mean over M = 1-64, µs): N=24576 K=7168 58.6; N=32768 K=512 13.0; N=3072 K=1536 9.8; N=512 K=7168 13.5;
 * N=7168 K=2304 14.2; N=7168 K=16384 59.7; N=4608 K=7168 34.5; N=3072 K=7168 34.0 (an H200: 176 MB in 58.6 µs is
 * above an H100's peak). Least squares of (time - the weight bytes at the modelled FP8 rate, 0.81 x 0.85 x
 * 4.8 TB/s) over those eight shapes against the K blocks: 8.0 µs + 0.14 µs per 128 of K.
 *
 * At prefill M: DeepGEMM's README at deepseek-ai/DeepGEMM@55ab91f72f76e8a6db0e86282c3169a88d93df1b ("Normal GEMMs for
 * dense models", H800 SXM5, whose 8-bit tensor rate is the H100 SXM's 1978.9 TFLOPS) reads 1009, 1125, 751, 1426, 1265
 * and 1168 TFLOPS for its six DeepSeek-V3 shapes at M = 4096: median 1146.5, 0.58 of the peak (`peakShare8`).
 * sgl-project/sglang#5207's tables at M = 4096 agree (N=7168 K=16384 717 µs, 1342 TFLOPS; N=7168 K=18432 857 µs, 1263;
 * N=4608 K=7168 271 µs, 1000).
 *
 * On ROCm (sglang==0.5.7 wheel, python/sglang/srt/layers/quantization/fp8_utils.py `_dispatch_auto_backend`): no
 * DeepGEMM or CUTLASS, so with SGLANG_USE_AITER=1 AITER's `gemm_a8w8_blockscale` after `aiter_per1x128_quant`
 * (`aiter_w8a8_block_fp8_linear`), else the Triton `w8a8_block_fp8_matmul`; both take the FP8 weights and their block
 * scales as stored (no dequantization to 16 bits). SemiAnalysisAI/InferenceX#863 profiles DeepSeek-R1 FP8 decode
 * with SGLang's ROCm image on an MI325X (gfx942, the MI300X's die) at M = 64 over TP 8 and times AITER's blockscale
 * GEMMs: q_a (N=1536 K=7168) ~123 µs, kv_a (N=576 K=7168) ~30 µs, the dense layers' gate_up (N=4608 K=7168) ~122 µs,
 * o_proj ~34 µs and the dense down ~39 µs (at TP 8 their K are 2048 and 2304), each far above its weight bytes.
 * Least squares of (time - the weight bytes at the modelled FP8 rate, 0.69 x 0.81 x 6.0 TB/s) over those five
 * against the K blocks: 7.8 µs + 1.41 µs per 128 of K. ROCm/aiter#1930 agrees in size: tuning the one untuned
 * gfx942 shape N=2112 K=7168 (DeepSeek's fused q_a/kv_a) cut SGLang's median TPOT for DeepSeek-R1 on 8x MI300X at 4
 * in flight from 28.76 to 22.05 ms, 6.7 ms over 61 layers (the fit gives that GEMM 7.8 + 56 x 1.41 = 87 µs a layer).
 * On gfx942 DeepSeek-V3/R1's shared expert runs inside the fused MoE (models/deepseek_v2.py
 * `determine_num_fused_shared_experts`: HIP from capability 9.4, with or without expert parallelism).
 *
 * MLA's absorbed kv_b on gfx942 (sglang==0.5.7 wheel, models/deepseek_v2.py): `post_load_weights` keeps the block-FP8
 * kv_b in FP8 with one per-tensor scale off CUDA (`block_quant_to_tensor_quant`; CUDA dequantizes it to BF16 once at
 * load, `block_quant_dequant`), and each decode forward on HIP without gfx950 widens it again before a BF16 bmm:
 * `torch.bmm(q_nope.to(torch.bfloat16).transpose(0, 1), self.w_kc.to(torch.bfloat16) * self.w_scale)` in
 * `forward_absorb_prepare` and the same for `w_vc` in `forward_absorb_core` ("TODO(haishaw): add bmm_fp8 to ROCm"; the
 * activations are BF16 already, so their `.to` copies nothing). Per kv_b weight the cast reads 1 byte and writes 2, the
 * scale's multiply reads 2 and writes 2, the bmm reads 2: 9 bytes where the step's weight read counts 1, 8 more, and
 * two elementwise kernels for each of W_UK and W_UV, 4 a layer, inside the captured graph (replayed every step).
 * sgl-project/sglang#18242 (after 0.5.7) later moved gfx942 onto the fused paths gated to gfx950 in this wheel.
 *
 * At prefill M the AITER linear on gfx942 is a Triton kernel, not CK's: the sglang==0.5.7 wheel's fp8_utils.py imports
 * only `aiter.ops.triton.gemm_a8w8_blockscale` (the CK import is commented out), and the sglang==0.5.13.post1 wheel's
 * `aiter_w8a8_block_fp8_linear` sets `use_triton = True` unless `_use_aiter_gfx95` (CK's `gemm_a8w8_blockscale` only
 * where a gfx950 shape is not in its Triton table), so AITER's CK tables (a8w8_blockscale_tuned_gemm*.csv) do not
 * time it. No gfx942 timing of AITER's Triton kernel at prefill M was found (ROCm/aiter#1930 posts TPOTs; ROCm/aiter#1232
 * and ROCm/aiter#1195 ran on gfx950); the one Triton blockwise FP8 GEMM timed on gfx942 with the same 1x128 and
 * 128x128 scales is AMD-AGI/Primus-Turbo#339's (627.96 TFLOPS forward over 84 shapes, 0.240 of the 2614.9 TFLOPS
 * 8-bit peak), tiled for the target: the linears' prefill ceiling (`rocmPrefill`, time/block-fp8.ts
 * blockFp8GemmRate), as vLLM's with AITER off takes it, without vLLM's default-tile share (AITER tunes its Triton
 * kernel's gfx942 configs: ROCm/aiter#1930). The routed experts run AITER's own fused MoE (`aiterLinearsTriton`: its CK/asm
 * kernels, AITER's tuned fmoe tables) and keep the W8A8 rate.
 *
 * The routed experts' decode call on gfx942 is AITER's fused MoE: with SGLANG_USE_AITER=1 and
 * `--moe-runner-backend auto`, `Fp8MoEMethod.create_moe_runner` takes MoeRunnerBackend.AITER on HIP
 * (python/sglang/srt/layers/quantization/fp8.py, sgl-project/sglang@00563d368df9673403eacead4adf45ef77ef0ca9): a K loop
 * over each routed expert's w13 (K = the hidden size) and w2 (K = the expert's width on the GPU) whose 128-wide
 * blocks each load the block scales of both operands before their MFMA. At a few tokens that loop, not the bytes, sets the call: AITER's tuned gfx942 table for GLM-5.1 over TP 8
 * (ROCm/aiter@e4048607a535ace3a2b51ded31b1c8c2d45c0879 `aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv`,
 * gfx942, cu_num 304: model_dim 6144, inter_dim 256, 257 experts top 9, per_1x128, the one-stage asm kernel
 * `fmoe_bf16_blockscaleFp8_g1u1_vs_silu_1tg`) times 67.38 µs at one token and 71.10 at two, where the 9 experts' 42.5 MB
 * take 9.9 µs at 4.3 TB/s: 48 + 2 blocks of K at 1.35 µs each (`fusedMoePerKBlockSeconds`; the AITER
 * blockscale GEMMs of SemiAnalysisAI/InferenceX#863 above cost 1.41 µs a block). The same rate and the bytes give
 * the table's other gfx942 rows within 3%: its DeepSeek-V3 EP-8 shape (a8w8_blockscale_tuned_fmoe_ds_v3.csv, model_dim
 * 7168, inter_dim 2048, 33 experts top 9) 99.2 µs at one token against 56 + 16 blocks, 97.0 µs (the 9 experts' 396 MB
 * 92 µs), and GLM-5.1's EP shape (inter_dim 2048, 32 experts top 8) 84.3 µs against 86.3 (bytes 70 µs). Beyond a few tokens
 * the table's calls stay near the stream (GLM-5.1's TP-8 shape: 123.6 µs at 16 tokens, 340.6 at 256, where all 257
 * experts' bytes take 282 at 4.3 TB/s), so the call adds nothing once the bytes outlast the chain (time/aiter-moe.ts).
 *
 * On CUDA the same function (models/deepseek_v2.py `determine_num_fused_shared_experts`, sglang==0.5.6.post1 and
 * 0.5.7 wheels) fuses DeepSeek-V3/R1's one shared expert into the routed fused MoE from capability 8.0 when the config
 * is DeepseekV3ForCausalLM with 256 routed experts and `--disable-shared-experts-fusion` is off; 0.5.7 refuses it
 * under expert parallelism on CUDA ("Only Deepseek V3/R1 on AMD-platform ... under expert parallelism"), both refuse
 * it with DeepEP. On Hopper the default MoE runner is the Triton fused_moe, so the shared expert's gate_up and down
 * run there, not as two DeepGEMM linears. On SM100 server_args.py `_handle_model_specific_adjustments` picks the
 * `flashinfer_trtllm` MoE runner for DeepseekV3ForCausalLM's FP8 checkpoint (no a2a backend, runner `auto`) and
 * `_handle_moe_kernel_config` then sets `disable_shared_experts_fusion`: the shared expert runs as its own block-FP8
 * linears (on a second stream beside the routed experts under graph capture, `forward_normal_dual_stream`), which has
 * no figure here (no `blackwell` entry, above).
 *
 * On SM100 before DeepGEMM's SM100 path, SGLang's block-FP8 linears ran Triton: sglang==0.4.6.post2's
 * `apply_w8a8_block_fp8_linear` takes sgl-kernel's CUTLASS blockwise GEMM only under SUPPORT_CUTLASS_BLOCK_FP8 (unset by
 * default) and DeepGEMM only where `get_device_sm() == 90` (layers/quantization/deep_gemm.py), so on a B200 every
 * linear is `per_token_group_quant_fp8` then the Triton `w8a8_block_fp8_matmul` (tuned NVIDIA_B200 files for most of
 * DeepSeek-V3's TP-8 shapes, none for the fused q_a/kv_a N=2112 K=7168); sglang==0.4.7's `dispatch_w8a8_block_fp8_linear`
 * still ends at `triton_w8a8_block_fp8_linear` on SM100 (FlashInfer's GEMM and CUTLASS only by environment variable,
 * DeepGEMM still SM90 only); sglang==0.4.8's deep_gemm_wrapper/configurer.py enables DeepGEMM from SM 90 up. The same 0.4.6.post2 fuses DeepSeek-V3/R1's shared expert into the routed MoE from
 * capability 9.0 without DeepEP (`determine_n_share_experts_fusion`), as `sglangSharedExpertsFused` reads. That
 * kernel's decode cost is the same Triton source's on Hopper: sgl-project/sglang#5820's 'sglang triton' column (an
 * H200) at M = 1 reads 84.9 µs for N=24576 K=7168, 15.2 for N=32768 K=512, 31.8 for N=512 K=7168 and 22.4 for N=7168
 * K=2304; least squares of (time - the weight bytes at the modelled FP8 rate, 0.81 x 0.85 x 4.8 TB/s) against the K
 * blocks: 9.3 µs + 0.39 µs per 128 of K (`sm100Triton`; DeepGEMM's column over the same four shapes: 6.7 + 0.20). No
 * B200 timing of the kernel was found: the H200 figure is taken for SM100 (docs/assumptions.md).
 *
 * On Ada (cc 8.9) neither DeepGEMM nor a blockwise CUTLASS kernel runs (both SM90 and up): `dispatch_w8a8_block_fp8_linear`
 * (srt/layers/quantization/fp8_utils.py) falls to Triton's `w8a8_block_fp8_matmul`, and the routed experts run SGLang's
 * copy of the Triton fused_moe kernel (layers/moe/fused_moe_triton/fused_moe.py) at the same default tiles as vLLM's
 * (fused-moe-grid.ts: 64 x 128, block K 128) where no tuned file matches the card. The experts' prefill ceiling (`ada`)
 * is vLLM's kernel's, timed on one L40S at those tiles (vllm-project/vllm#53710; engines/vllm/block-fp8.ts); the
 * linears keep the W8A8 rate, as vLLM's.
 *
 * On Hopper the routed experts of a block-FP8 checkpoint do not run DeepGEMM by default, though its linears do:
 * `Fp8MoEMethod.create_moe_runner` (srt/layers/quantization/fp8.py, sglang==0.5.4 and 0.5.23 wheels) resolves
 * `--moe-runner-backend auto` (its default) to DeepGEMM's grouped GEMM only when `--moe-a2a-backend` is DeepEP (0.5.23:
 * also mooncake or nixl) and SGLANG_ENABLE_JIT_DEEPGEMM holds (`is_deepgemm_moe_runner_backend_enabled`), else to the
 * Triton fused_moe (`MoeRunnerBackend.TRITON`, layers/moe/moe_runner/triton.py); `--ep-size` without an all-to-all
 * backend and DP attention keep FusedMoE and that runner (ep_moe/layer.py `get_moe_impl_class`, 0.5.4). Before 0.5
 * (sglang==0.4.8 wheel) `--enable-ep-moe` took EPMoE, whose FP8 path ran DeepGEMM's masked grouped GEMM, and
 * `--enable-deepep-moe` DeepEPMoE; TP alone took FusedMoE's Triton kernel. The launch the estimate writes
 * (launch.ts) sets no all-to-all backend: the routed experts run the Triton kernel (`SM90_FP8_MOE_RUNNER`).
 * That kernel applies the per-128 scales of both operands in its K loop, as the Triton blockwise linear does
 * (`fused_moe_kernel` with `block_shape`: `accumulator += tl.dot(a, b) * a_scale[:, None] * b_scale[None, :]`;
 * vLLM's and SGLang's copies alike). vllm-project/vllm#23280 times that Triton blockwise GEMM on an H100 (N=2112
 * K=7168, tuned config): 406.5 TFLOP/s at M = 8192, 0.205 of the 1978.9 TFLOPS dense 8-bit peak, where DeepGEMM reads
 * 0.58 (`peakShare8`, above): the experts' prefill ceiling (`moePeakShare8`). SGLang ships tuned fused_moe files for
 * some Hopper shapes (moe_runner/triton_utils/configs/triton_3_*: E=257,N=256 on H200 and H20 for DeepSeek-V3 at TP 8;
 * none for E=160,N=640 on H200 before sgl-project/sglang#8852); the default tiles of an untuned shape run below it
 * (vllm-project/vllm#23939: 305.1 against 403.0 TFLOP/s at M = 4096), which the model does not price (no catalog of
 * tuned files; docs/time-model.md, "Tuned or default fused_moe tiles").
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';
import { TRITON_BLOCK_FP8_MOE_ADA_SHARE8 } from '../moe-call.js';

/**
 * SGLang's MoE runner for a block-FP8 checkpoint on SM90 by `--moe-a2a-backend`, with `--moe-runner-backend auto`
 * (fp8.py `create_moe_runner`, sglang==0.5.23 wheel; note above), and the prefill ceiling each gives the routed
 * experts: DeepGEMM's grouped GEMM at the linears' DeepGEMM share (undefined: `peakShare8`), the Triton fused_moe at
 * the Triton blockwise kernel's (vllm-project/vllm#23280, 406.5 of 1978.9 TFLOPS on an H100 at M = 8192).
 */
const SM90_FP8_MOE_RUNNER = {
  none: 'triton',
  deepep: 'deep_gemm',
  mooncake: 'deep_gemm',
  nixl: 'deep_gemm',
} as const;
const MOE_RUNNER_PEAK_SHARE8: Record<'triton' | 'deep_gemm', number | undefined> = {
  triton: 406.5 / 1978.9, // Triton block-FP8 GEMM, tuned, M = 8192, one H100, vllm-project/vllm#23280
  deep_gemm: undefined, // DeepGEMM: the linears' peakShare8
};
/** The all-to-all backend of the launch the estimate writes (launch.ts: no --moe-a2a-backend, SGLang's 'none'). */
const LAUNCH_A2A_BACKEND = 'none' satisfies keyof typeof SM90_FP8_MOE_RUNNER;

/**
 * Whether SGLang runs the MoE layers' shared expert inside the routed fused MoE on Hopper (note above): DeepSeek-V3/R1's
 * architecture with 256 routed experts, without expert parallelism.
 */
const sglangSharedExpertsFused = (
  model: { architecture: string; routedExperts: number },
  ep: number,
): boolean =>
  model.architecture === 'DeepseekV3ForCausalLM' && model.routedExperts === 256 && ep <= 1;

export const SGLANG_BLOCK_FP8_LINEAR: NonNullable<FrameworkProfile['blockFp8Linear']> = {
  hopper: {
    baseSeconds: 8.0e-6, // DeepGEMM fp8_gemm_nt, sgl-project/sglang#5820 / sgl-project/sglang#5207 tables (fit above)
    perKBlockSeconds: 0.14e-6, // per 128 of K, same fit
    peakShare8: 0.58, // DeepGEMM at M = 4096 on an H800, deepseek-ai/DeepGEMM@55ab91f README (note above)
    // the routed experts' runner at the estimate's launch (SM90_FP8_MOE_RUNNER): the Triton fused_moe
    moePeakShare8: MOE_RUNNER_PEAK_SHARE8[SM90_FP8_MOE_RUNNER[LAUNCH_A2A_BACKEND]],
    sharedExpertsFused: sglangSharedExpertsFused, // deepseek_v2.py determine_num_fused_shared_experts, 0.5.6.post1/0.5.7
  },
  rocm: {
    targets: ['gfx942'], // MI300X / MI325X; SemiAnalysisAI/InferenceX#863 profiled the gfx942 die
    baseSeconds: 7.8e-6, // AITER gemm_a8w8_blockscale, SemiAnalysisAI/InferenceX#863 table (fit above)
    perKBlockSeconds: 1.41e-6, // per 128 of K, same fit
    sharedExpertsFused: true, // deepseek_v2.py determine_num_fused_shared_experts, sglang==0.5.7
    // kv_b widened to BF16 each step: cast (1 + 2 B) and scale (2 + 2 B) then the bmm's 2 B read, less the 1 B counted;
    // 2 kernels each for w_kc and w_vc (deepseek_v2.py forward_absorb_prepare / forward_absorb_core, sglang==0.5.7)
    absorbDequant: { extraBytesPerParam: 8, kernels: 4 },
    // AITER's fused MoE, one 128-wide K block: 67.3825 µs at one token over 48 + 2 blocks, GLM-5.1 TP 8, gfx942
    // (ROCm/aiter@e4048607 a8w8_blockscale_tuned_fmoe_glm5_1.csv; note above)
    fusedMoePerKBlockSeconds: 67.3825e-6 / (48 + 2),
  },
  rocmPrefill: {
    targets: ['gfx942'], // aiter_w8a8_block_fp8_linear: `use_triton = True` off gfx950 (0.5.13.post1; 0.5.7 imports only it)
    // Triton blockwise FP8 GEMM forward, MI300X, AMD-AGI/Primus-Turbo#339 (627.96 TFLOPS; the ceiling vLLM's takes)
    peakShare8: 627.96 / 2614.9,
    aiterLinearsTriton: true, // AITER's fused_moe (CK/asm) runs the routed experts, SGLANG_USE_AITER=1 in the ROCm image
  },
  // SGLang's copy of vLLM's Triton fused_moe at the same default tiles, taken at vLLM's L40S share (engines/moe-call.ts)
  ada: { moePeakShare8: TRITON_BLOCK_FP8_MOE_ADA_SHARE8 },
  // SM100 before 0.4.8: the Triton w8a8_block_fp8_matmul (sglang==0.4.6.post2 and 0.4.7 fp8_utils.py; note above)
  sm100Triton: {
    before: '0.4.8', // sglang==0.4.8 deep_gemm_wrapper/configurer.py enables DeepGEMM from SM 90 up (no SM100 figure)
    baseSeconds: 9.3e-6, // 'sglang triton' at M = 1, sgl-project/sglang#5820 (H200), fit above
    perKBlockSeconds: 0.39e-6, // per 128 of K, same fit
  },
};
