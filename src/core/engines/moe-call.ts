/**
 * The fixed latency of one MoE layer's fused-expert call at batch 1, beyond its weight bytes and kernel gaps
 * (FrameworkProfile.moeCallSeconds; time/moe-call.ts fades it as the bytes grow). vLLM and SGLang run the same
 * kernels for it (both profiles state these figures): the Triton fused_moe chain (router GEMM, top-k,
 * moe_align_block_size, the w13 and w2 GEMMs with the activation between, the sum;
 * vllm/model_executor/layers/fused_moe/fused_moe.py, and SGLang's copy in
 * python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py) and, for NVFP4 experts on Blackwell, FlashInfer's
 * CUTLASS fused MoE (vLLM's default FlashInfer backend, VLLM_FLASHINFER_MOE_BACKEND=throughput; SGLang's
 * --moe-runner-backend flashinfer_cutlass).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';

// benchmarks/kernels/benchmark_moe.py times one fused_moe call (top-k, moe_align_block_size, w13 GEMM,
// silu_and_mul, w2 GEMM, moe_sum) in a CUDA graph. Qwen3-30B-A3B's shape (E=128, N=768, top-8, hidden 2048:
// 75.5 MB of bf16 experts at batch 1) takes 109.21 µs on an A100 PCIe 40GB (https://github.com/vllm-project/vllm/pull/19049)
// and 39.61 µs on a B200 (https://github.com/vllm-project/vllm/pull/31448); Qwen3-235B's FP8 shape at TP 8
// (E=128, N=192, hidden 4096: 18.9 MB) 31.70 µs on an H200 (https://github.com/sgl-project/sglang/pull/11730).
// All three time the engines' default tiles (get_default_config: no tuned JSON for that shape and GPU), what the
// engine runs where its wheel ships no file (docs/time-model.md, "Tuned or default fused_moe tiles").
// Less the bytes at 0.85 of peak (57.1, 11.6 at the B200's 7,672 GB/s, 5.7 µs at FP8's 0.81) and the 6 kernels' costs
// in the engines' graph (engines/graph-kernel.ts, 6 x 3.15 = 18.9 µs):
const TRITON_FUSED_MOE: { ampere: number; hopper: number; blackwell: number } = {
  ampere: 33.2e-6, // A100, vllm-project/vllm#19049: 109.21 - 57.1 - 18.9 µs
  hopper: 7.1e-6, // H200, sgl-project/sglang#11730: 31.70 - 5.7 - 18.9 µs
  blackwell: 9.1e-6, // B200, vllm-project/vllm#31448: 39.61 - 11.6 - 18.9 µs
};

// FlashInfer's CUTLASS FP4 fused MoE at batch 1 on Blackwell: its activation FP4 quantization into the 128x4
// scale layout, expert permutation and finalize kernels run latency-bound around two grouped GEMMs of one row
// (flashinfer-ai/flashinfer#1734 names them; no kernel benchmark of this backend at one token was found).
// 118 µs a call was worked out from calibration row sglang8552-dsr1-nvfp4-b200-cutlass (in sample: DeepSeek-R1
// NVFP4 over TP 4 with SGLang, TPOT 12.66 ms measured against 5.82 ms estimated without an MoE call latency, over
// 58 MoE layers, the graph's kernels at engines/graph-kernel.ts's cost, SGLang's SM100 DeepSeek kernels counted
// (engines/sglang/decode-kernels.ts); listed in calibration/assumed.json).
const FLASHINFER_CUTLASS_NVFP4_MOE = 118e-6; // FlashInfer CUTLASS NVFP4 MoE call, batch 1, B200

/**
 * FlashInfer's TensorRT-LLM-gen NVFP4 fused MoE (`trtllm_fp4_block_scale_moe`: routing, gemm1 with the SwiGLU, gemm2,
 * finalize) at one token on a B200 at DeepSeek's shape: 60 µs, ~31 µs beyond its bytes (flashinfer-ai/flashinfer#3976,
 * CUPTI in a CUDA graph). SGLang's default NVFP4 MoE on SM100 (engines/sglang/memory.ts).
 */
export const FLASHINFER_TRTLLM_NVFP4_MOE = 31e-6; // flashinfer-ai/flashinfer#3976: 60 µs at one token less its bytes

/**
 * vLLM's MXFP4 experts on SM100 run the same TensorRT-LLM-gen MoE with BF16 activations: the 0.10.1 wheel's
 * Mxfp4MoEMethod.apply calls `trtllm_fp4_block_scale_moe` with the router's logits, gemm1's clamped SwiGLU (gemm1_alpha
 * 1.702, gemm1_clamp_limit 7.0: gpt-oss's swiglu_limit inside the GEMM) and the finalize where
 * `_should_use_flashinfer_mxfp4_bf16` (on by default on compute capability 10.0 with FlashInfer installed), and later
 * releases pick FLASHINFER_TRTLLM_MXFP4_BF16_MONOLITHIC by default on the 10.x family
 * (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend, vllm-project/vllm@045335ce).
 * No one-token timing of its MXFP4 x BF16 GEMMs was found: the NVFP4 call's fixed latency is taken for it.
 */
export const FLASHINFER_TRTLLM_MXFP4_MOE = FLASHINFER_TRTLLM_NVFP4_MOE; // the same call, flashinfer-ai/flashinfer#3976

/**
 * The rate of that MXFP4 x BF16 call once its tiles fill (the routed experts' GEMMs of a prefill or a large decode
 * batch). tcgen05 multiplies FP4 only beside FP4, FP6 or FP8 operands (PTX ISA, tcgen05.mma kinds: kind::f8f6f4,
 * kind::mxf4, kind::mxf8f6f4; BF16 only in kind::f16), so the call converts each FP4 weight tile to BF16 on the SMs and
 * runs kind::f16. flashinfer-ai/flashinfer#2671 times `trtllm_fp4_block_scale_moe` with `--fp4_mode mxfp4_bf16` at
 * gpt-oss-120b's padded shape (128 experts, hidden and intermediate 3072, top 4, 2,048 tokens: 64 a routed expert) in
 * FlashInfer 0.6.0: 1.589 ms, "achieved tflops 291.883" (0.13 of the B200's dense BF16 peak; the same issue's 0.6.3
 * runs it 1.5-2x slower). A build of 2026 taken for vLLM's August 2025 FlashInfer (0.2.10-0.2.12), whose rate no
 * outside benchmark gives: listed in calibration/assumed.json.
 */
export const FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS = 291.883e12; // flashinfer-ai/flashinfer#2671, 0.6.0, 2,048 tokens

/**
 * The Triton fused_moe with block-FP8 weights on compute capability 8.9 (Ada: no blockwise CUTLASS or DeepGEMM
 * kernel below SM90), at its default config: vllm-project/vllm#53710's `benchmark_moe.py` on one L40S (E=128, N=768,
 * Triton 3.6.0) times 3195.68 µs at M = 8192 tokens, 193.5 TFLOP/s, 0.264 of the L40S's 733 TFLOPS dense 8-bit peak.
 * The routed experts' prefill ceiling of vLLM's kernel and of SGLang's copy of it (engines/vllm/block-fp8.ts,
 * engines/sglang/block-fp8.ts).
 */
export const TRITON_BLOCK_FP8_MOE_ADA_SHARE8 = 193.5 / 733; // vllm-project/vllm#53710, one L40S, M = 8192

/**
 * FlashInfer's TensorRT-LLM-gen block-scaled FP8 fused MoE (`trtllm_fp8_block_scale_moe` with DeepSeek's FP8 scales:
 * 128x128 weight blocks, 1x128 activation groups), SGLang's MoE runner for DeepSeek-V3/R1's FP8 checkpoint on SM100
 * since sgl-project/sglang#11816 (engines/sglang/decode-kernels.ts): the NVFP4 call's runner (trtllm_fused_moe_runner.cu
 * `Runner::run`: routing, gemm1, the activation for DeepSeek FP8, gemm2, finalize) with FP8 GEMMs. No one-token B200
 * timing of this call at DeepSeek's TP-8 shape was found (flashinfer-ai/flashinfer#4985 and
 * flashinfer-ai/flashinfer#5301 time EP-8 shapes).
 * sgl-project/sglang#11816 switched SGLang to it for a gain over the Triton fused_moe it replaced, whose one-token call
 * at that shape on a B200 its table times at 52.65 µs (tuning_fused_moe_triton.py, E=256 N=256 fp8_w8a8, 128x128
 * blocks): taken as the new call's bound, less its bytes (top 8 experts of 3 x 256 x 7168 FP8, 44.0 MB, 8.3 µs at 0.85
 * of the B200's 7,672 GB/s x FP8's 0.81) and the 6 kernels' graph gaps (6 x 3.15 = 18.9 µs), as the Triton figures
 * above: 25.4 µs, near the NVFP4 call's 31 (flashinfer-ai/flashinfer#5301 times the MXFP8 and NVFP4 calls of this runner
 * within 2 µs of each other at one token on a B300). Listed in calibration/assumed.json.
 */
export const FLASHINFER_TRTLLM_FP8_BLOCK_MOE = 25.4e-6; // sgl-project/sglang#11816: 52.65 - 8.3 - 18.9 µs

/** The MoE call latencies of an engine that runs the Triton fused_moe chain and FlashInfer's CUTLASS FP4 MoE. */
export const FUSED_MOE_CALL_SECONDS: NonNullable<FrameworkProfile['moeCallSeconds']> = {
  ...TRITON_FUSED_MOE,
  blackwellNvfp4: FLASHINFER_CUTLASS_NVFP4_MOE,
};

// get_default_config for 16-bit experts when no tuned file is shipped and the tokens are at most E:
// {BLOCK_SIZE_M 16, BLOCK_SIZE_N 32, BLOCK_SIZE_K 64, GROUP_SIZE_M 1}, no num_stages, so Triton's default 3
// (vllm/model_executor/layers/fused_moe/fused_moe.py, the dict vllm-project/vllm#31448 and vllm-project/vllm#19049 print;
// SGLang 0.5.6's copy the same: docs/time-model.md, "Tuned or default fused_moe tiles").
export const FUSED_MOE_TILE_16: NonNullable<FrameworkProfile['fusedMoeTile16']> = {
  blockK: 64, // BLOCK_SIZE_K of the default dict, as vllm-project/vllm#31448 prints it
  stages: 3, // triton-lang/triton@2b43145c third_party/nvidia/backend/compiler.py CUDAOptions.num_stages
};

// The same dict on ROCm leaves num_stages unset too, so Triton's HIP backend takes its own default, 2: its stream
// pipeliner keeps one K tile's loads in flight ahead of the dot (triton-lang/triton@003da478d84f5bb0f51b3988cf0ea0bbe60282b7
// third_party/amd/backend/compiler.py HIPOptions.num_stages, passed to add_stream_pipeline).
export const TRITON_HIP_NUM_STAGES = 2; // triton-lang/triton@003da478 HIPOptions.num_stages
