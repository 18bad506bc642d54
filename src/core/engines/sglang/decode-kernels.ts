/**
 * Kernels SGLang's CUDA-graph decode step launches for DeepSeek-V3/R1's parts beyond the counted chain
 * (FrameworkProfile.decodeFeatureKernels; time/decode-host.ts), counted in the sglang==0.5.6.post1 wheel
 * (https://pypi.org/project/sglang/0.5.6.post1/) for the path it takes on SM100 (compute capability 10.x): the
 * trtllm_mla attention backend and, for DeepSeek's block-FP8 checkpoint, the flashinfer_trtllm MoE runner with the
 * shared expert kept out of the routed MoE (server_args.py `_handle_model_specific_adjustments`; block-fp8.ts here).
 * Elsewhere (Hopper's FA3 MLA and Triton MoE with the shared expert fused in, gfx950) the kernels were not counted;
 * gfx942's MLA layer is counted below.
 * Qwen3-MoE's, GLM-4.5/4.6's, gpt-oss's and NVFP4 Llama's SM100 paths and Qwen3-Next's CUDA path are counted below.
 *
 * - MLA (models/deepseek_v2.py `forward_absorb_prepare`, `forward_absorb_core`; layers/attention/trtllm_mla_backend.py
 *   `forward_decode`, BF16 KV cache): beyond a plain layer's qkv and o GEMMs, norms, rotary, KV store and attention
 *   kernel, the q_a_layernorm (kv_a_layernorm runs beside it on the alternate stream under graph capture), the q_b_proj
 *   GEMM, the absorbed W_UK bmm (kv_b_proj is dequantized to BF16 at load for 128x128 blocks, `post_load_weights`
 *   `block_quant_dequant`), `concat_mla_absorb_q` of the query halves, and the W_UV bmm written into o_proj's input
 *   (`torch.bmm(..., out=)`, no copy): 5.
 * - A shared expert (DeepseekV2MoE `forward_normal_dual_stream`, taken under graph capture when it is not fused): its
 *   gate_up GEMM, activation and down GEMM run on the step's stream while the router and routed experts run on the
 *   alternate one, so only the add of its output after the join lands on the critical path: 1, its linears'
 *   activation quantization left out (`sharedExpertBeside`).
 * - The router's score correction bias and grouped top-k: computed inside FlashInfer's trtllm_fp8_block_scale_moe
 *   (the top-k is bypassed, layers/quantization/fp8.py `apply_with_router_logits`), where the counted chain already
 *   has a top-k kernel: 0.
 * - A block-FP8 linear (layers/quantization/fp8_utils.py `_dispatch_auto_backend`: DeepGEMM first while JIT DeepGEMM
 *   is on): the activation's per-token-group quantization before the GEMM, no row pad: 1.
 * - The block-FP8 experts (`apply_with_router_logits`): `per_token_group_quant_fp8` of the hidden states, the
 *   transposed copy of their scales (`a_sf.t().contiguous()`) and the correction bias's cast to BF16 (a float32
 *   parameter, MoEGate): 3. Above 16 tokens the router's BF16 logits are cast to float32 too (MoEGate takes
 *   `dsv3_router_gemm` with float32 output only up to 16): not counted.
 */
import {
  NO_FEATURE_KERNELS,
  type DecodeFeatureKernels,
  type EngineBuild,
  type TorchBiasedRouter,
} from '../../memory/decode-feature-kernels.js';
import { isHopper as hopper, isSm100 as sm100 } from '../../compute-capability.js';
import {
  sglangHopperRopeFused,
  sglangHopperTritonMlaCounted,
  sglangMlaDecodeBackend,
  sglangMlaTwoPass,
  sglangTritonMlaCounted,
} from './mla-backend.js';

export const SGLANG_SM100_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  mlaLayer: 5, // deepseek_v2.py forward_absorb_*, trtllm_mla_backend.py forward_decode (sglang==0.5.6.post1)
  sharedExpert: 1, // forward_normal_dual_stream: the add after the streams join
  sharedExpertBeside: true, // forward_normal_dual_stream: the shared expert on the step's stream, beside the MoE
  biasedRouter: { modelTypes: [], kernels: 0 }, // routing inside trtllm_fp8_block_scale_moe
  blockFp8Linear: 1, // per-token-group quantization before DeepGEMM (fp8_utils.py)
  blockFp8PadSm90: 0, // DeepGEMM takes any M (no row pad)
  blockFp8Moe: 3, // fp8.py apply_with_router_logits: quantize, scale transpose, bias cast
  trtllmMoeBlockFp8: true, // fp8.py apply_with_router_logits: one trtllm_fp8_block_scale_moe call (sglang==0.5.6.post1)
};

/**
 * DeepSeek-V3 (block-FP8 checkpoint) on SM100 with the Triton MLA backend, counted in the sglang==0.4.6.post2 wheel
 * (https://pypi.org/project/sglang/0.4.6.post2/; the release's default there, mla-backend.ts, and what
 * `--attention-backend triton` picks), whose JIT DeepGEMM is on for SM90 only (layers/quantization/deep_gemm.py
 * `sm_version == 90`):
 * - MLA (models/deepseek_v2.py `forward_absorb`): kv_b_proj's 128x128 blocks are requantized per tensor at load
 *   (`post_load_weights` `block_quant_to_tensor_quant`), so each absorbed bmm is `per_tensor_quant_mla_fp8` (two Triton
 *   kernels, layers/quantization/fp8_kernel.py) and `bmm_fp8`: beyond the chain, the q_a_layernorm, the q_b_proj GEMM,
 *   W_UK's 3, the latent's `.contiguous()` copy before the kv_a_layernorm and that norm, the `torch.cat` of q and of k
 *   before the Triton decode, the decode's second kernel (`_decode_softmax_reducev_fwd`, split-KV), W_UV's 3 and the
 *   `flatten` copy of its transposed output: 14.
 * - The shared expert: fused into the routed experts on SM90 and above (`determine_n_share_experts_fusion`,
 *   n_share_experts_fusion = tp for DeepseekV3ForCausalLM with 256 experts): 0. The routed output's
 *   `* routed_scaling_factor` (DeepseekV2MoE.forward_normal): 1 an MoE layer.
 * - A block-FP8 linear (layers/quantization/fp8_utils.py `apply_w8a8_block_fp8_linear`): `per_token_group_quant_fp8`
 *   before the GEMM: 1. The block-FP8 experts (fused_moe.py `invoke_fused_moe_kernel`): the same quantization before
 *   each of the two GEMMs: 2.
 * The grouped top-k with its correction bias (`biased_grouped_topk`) was not read: the chain's one top-k.
 */
export const SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  mlaLayer: 14, // deepseek_v2.py forward_absorb, fp8_kernel.py per_tensor_quant_mla_fp8 (sglang==0.4.6.post2)
  moeLayer: 1, // DeepseekV2MoE.forward_normal: * routed_scaling_factor (sglang==0.4.6.post2)
  blockFp8Linear: 1, // fp8_utils.py apply_w8a8_block_fp8_linear: per_token_group_quant_fp8 (sglang==0.4.6.post2)
  blockFp8Moe: 2, // fused_moe.py invoke_fused_moe_kernel: per_token_group_quant_fp8 per GEMM (sglang==0.4.6.post2)
};

/**
 * DeepSeek-V3 (block-FP8 checkpoint) on Hopper with the Triton MLA backend, the default there from sglang==0.4.1 to
 * 0.4.5 (mla-backend.ts SGLANG_HOPPER_TRITON_MLA_COUNTED), counted in the sglang==0.4.4.post3 wheel
 * (https://pypi.org/project/sglang/0.4.4.post3/) and checked against 0.4.1, 0.4.3 and 0.4.5:
 * - MLA (models/deepseek_v2.py `forward_absorb` on CUDA): beyond the chain, kv_a_proj_with_mqa's GEMM (q_a_proj is
 *   apart), the q_a_layernorm, the q_b_proj GEMM, W_UK's 15 (kv_b_proj requantized per tensor at load,
 *   `post_load_weights` `block_quant_to_tensor_quant`, so q_nope goes through fp8_utils.py `input_to_float8`, torch ops:
 *   `aminmax` and the copy it makes of its transposed input ("Tensor.aminmax which call Tensor.contiguous inside",
 *   sgl-project/sglang#5370), two `abs`, `maximum`, `clamp`, the reciprocal and product of `fp8_max / amax`, the
 *   scaling product, the second `clamp`, the cast to e4m3, `.contiguous()` of the transposed result, `.float()` and
 *   `.reciprocal()` of the scale: 14; then `bmm_fp8`), its copy into q_input, the latent's `.contiguous()` copy, the
 *   kv_a_layernorm and its copy back into k_input, q_pe's and k_pe's copies into q_input and k_input, the Triton
 *   decode's second kernel (`_decode_softmax_reducev_fwd`, split-KV), W_UV's 15 and the `flatten` copy of its
 *   transposed output: 41. At one sequence the transposed inputs are already contiguous (two copies fewer each): not
 *   separated.
 * - The shared expert on the step's stream (DeepseekV2MoE.forward_normal; the fusion of sgl-project/sglang#4918 is off
 *   on SM90 until sgl-project/sglang#5571, n_share_experts_fusion 0 in sglang==0.4.5): its gate_up GEMM, activation,
 *   down GEMM and the add: 4. The routed output's `* routed_scaling_factor`: 1 an MoE layer.
 * - The router (layers/moe/topk.py): no fused gate in these wheels (`moe_fused_gate` absent), so the torch.compile'd
 *   `biased_grouped_topk` (sglang==0.4.3 to 0.4.5), the same three top-k's and Inductor stretches as
 *   SGLANG_TORCH_BIASED_ROUTER counts: 6. sglang==0.4.1 ran it uncompiled (a kernel an op): its extra ops not counted.
 * - A block-FP8 linear (fp8_utils.py `apply_w8a8_block_fp8_linear`: sgl-kernel's CUTLASS blockwise GEMM where N and K
 *   are multiples of 128, else DeepGEMM or Triton): `per_token_group_quant_fp8` before the GEMM: 1; the block-FP8
 *   experts (fused_moe.py): that quantization before each of the two GEMMs: 2.
 */
export const SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  mlaLayer: 41, // deepseek_v2.py forward_absorb, fp8_utils.py input_to_float8 (sglang==0.4.4.post3)
  sharedExpert: 4, // DeepseekV2MoE.forward_normal: shared_experts on the step's stream, then the add (sglang==0.4.4.post3)
  moeLayer: 1, // DeepseekV2MoE.forward_normal: * routed_scaling_factor (sglang==0.4.4.post3)
  // topk.py biased_grouped_topk_impl under torch.compile, no moe_fused_gate (sglang==0.4.4.post3, 0.4.5)
  biasedRouter: { modelTypes: ['deepseek_v3', 'kimi_k2'], kernels: 6 },
  blockFp8Linear: 1, // fp8_utils.py apply_w8a8_block_fp8_linear: per_token_group_quant_fp8 (sglang==0.4.4.post3)
  blockFp8Moe: 2, // fused_moe.py: the activation's quantization before each GEMM (sglang==0.4.4.post3)
};

/**
 * The same layer in the releases of that span whose DeepseekScalingRotaryEmbedding.forward is torch
 * (mla-backend.ts sglangHopperRopeFused false: sglang==0.4.1 through 0.4.4.post2, and 0.4.5): 12 kernels more an MLA
 * layer beyond the chain's one rotary, as SGLANG_GFX942_TRITON_MLA_DEEPSEEK_KERNELS counts them.
 */
export const SGLANG_HOPPER_TRITON_MLA_TORCH_ROPE_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  ...SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS,
  mlaLayer: 41 + 12, // layers/rotary_embedding.py DeepseekScalingRotaryEmbedding.forward (sglang==0.4.4, 0.4.5)
};

/**
 * DeepSeek-V3 (block-FP8 checkpoint) on gfx942 with the Triton MLA backend, the only one that release takes on ROCm
 * (mla-backend.ts), counted in the sglang==0.4.3 wheel (https://pypi.org/project/sglang/0.4.3/):
 * - MLA (models/deepseek_v2.py `forward_absorb`): beyond the chain, kv_a_proj_with_mqa's GEMM (q_a_proj is apart),
 *   the q_a_layernorm, the q_b_proj GEMM, W_UK's 3 (kv_b_proj's FP8 e4m3fnuz weight cast to BF16 and scaled every step,
 *   "TODO(kernel): add bmm_fp8 for torch.float8_e4m3fnuz", then `torch.bmm`), its copy into q_input, the latent's
 *   `.contiguous()` copy, the kv_a_layernorm and its copy back into k_input, 12 more for the rotary
 *   (DeepseekScalingRotaryEmbedding.forward is torch there: the cos/sin gather, two `repeat_interleave`, and for q and
 *   for k `_rotate_gptj`'s negation and stack, two products and their sum; layers/rotary_embedding.py), q_pe's and
 *   k_pe's copies into q_input and k_input, the decode's second kernel (`_decode_softmax_reducev_fwd`), W_UV's 3 and
 *   the `flatten` copy of its transposed output: 29.
 * - The shared expert on the step's stream (DeepseekV2MoE.forward, no fusion in that release): its gate_up GEMM,
 *   activation, down GEMM and the add: 4. The routed output's `* routed_scaling_factor`: 1 an MoE layer.
 * - A block-FP8 linear (fp8_utils.py `apply_w8a8_block_fp8_linear`): `per_token_group_quant_fp8` before the GEMM: 1; the
 *   block-FP8 experts (fused_moe.py): that quantization before each of the two GEMMs: 2.
 * The grouped top-k with its correction bias was not read: the chain's one top-k.
 */
export const SGLANG_GFX942_TRITON_MLA_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  mlaLayer: 29, // deepseek_v2.py forward_absorb, rotary_embedding.py DeepseekScalingRotaryEmbedding (sglang==0.4.3)
  sharedExpert: 4, // DeepseekV2MoE.forward: shared_experts on the step's stream, then the add (sglang==0.4.3)
  moeLayer: 1, // DeepseekV2MoE.forward: * routed_scaling_factor (sglang==0.4.3)
  blockFp8Linear: 1, // fp8_utils.py apply_w8a8_block_fp8_linear: per_token_group_quant_fp8 (sglang==0.4.3)
  blockFp8Moe: 2, // fused_moe.py: the activation's quantization before each GEMM (sglang==0.4.3)
};

/**
 * Qwen3-MoE (`Qwen3MoeForCausalLM`) on SM100, counted in the sglang==0.5.8.post1 wheel
 * (https://pypi.org/project/sglang/0.5.8.post1/): server_args.py `_handle_model_specific_adjustments` sets the
 * flashinfer_trtllm MoE runner for an unquantized checkpoint too (`self.quantization is None`; 0.5.6 did so for fp8
 * and modelopt_fp4 only), so `get_moe_impl_class` builds FlashInferFusedMoE and its 16-bit experts run in one
 * `trtllm_bf16_moe` call with the top-k bypassed (layers/moe/fused_moe_triton/layer.py `forward_impl`). In
 * flashinfer_python==0.6.1 (the wheel's pin) that call launches, at one token, one routing kernel
 * (trtllm_fused_moe_routing_renormalize.cu: `routingIndicesBlockKernel` up to its block's tokens), the permute + first
 * GEMM with the SwiGLU fused in, the second GEMM and the finalize (trtllm_fused_moe_runner.cu `Runner::run`; the
 * activation kernel only for DeepSeek FP8), no memset (trtllm_fused_moe_kernel_launcher.cu). With the router GEMM
 * (qwen3_moe.py `forward_normal`) an MoE layer is 5 kernels where the Triton chain is 7 (router GEMM, top-k,
 * moe_align_block_size, w13, activation, w2, sum): 2 fewer.
 */
export const SGLANG_SM100_QWEN3_MOE_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS, // the FP8 checkpoint's block-FP8 path not counted
  trtllmMoe16: -2, // trtllm_bf16_moe: routing, gemm1 + SwiGLU, gemm2, finalize (flashinfer_python==0.6.1)
};

/**
 * SGLang's grouped top-k for a router with a score correction bias (DeepSeek-V3/R1, Kimi K2, GLM-4.5/4.6/-Air),
 * layers/moe/topk.py `biased_grouped_topk_gpu`, read in the sglang 0.5.2, 0.5.4, 0.5.5, 0.5.6, 0.5.7 and 0.5.8.post1
 * wheels (PyPI). Its branches depend on the platform only through `_is_cuda` and `_use_aiter` (SGLANG_USE_AITER on HIP),
 * no compute-capability check: on any CUDA card, `moe_fused_gate` (sgl_kernel) for a power-of-two count with at most 32
 * experts a group (all six); FlashInfer's `fused_topk_deepseek` for a power-of-two count, top-k at most 8 and, in one
 * group, at most 384 experts (from 0.5.8; with more groups its limits fall inside moe_fused_gate's); and
 * `kimi_k2_moe_fused_gate` for exactly 384 experts in one group (from 0.5.6, absent from 0.5.5's file). Anything else
 * runs the torch.compile'd `biased_grouped_topk_impl` (6 kernels beyond the chain's top-k, counted with GLM-4.5 below),
 * on CUDA and on HIP without AITER alike; with AITER (the ROCm image sets it) `aiter_biased_grouped_topk` runs instead,
 * so the ROCm tables leave this out. DeepSeek-V3's 256 experts in 8 groups (32 a group) take moe_fused_gate; GLM-4.5/4.6's
 * 160 take the torch path at every release; GLM-4.5-Air's 128 in one group before 0.5.8; Kimi K2's 384 before 0.5.6.
 */
export const SGLANG_TORCH_BIASED_ROUTER: TorchBiasedRouter = {
  // biased_grouped_topk_impl: 3 aten.topk fallbacks + 4 Inductor stretches, less the chain's top-k (sglang==0.5.8.post1)
  kernels: 6,
  modelTypes: ['deepseek_v3', 'kimi_k2', 'glm4_moe'], // TopK(use_grouped_topk=True, correction_bias=...) callers
  gateMaxPerGroup: 32, // moe_fused_gate: MAX_VPT=32 experts a group (topk.py, sglang 0.5.2 to 0.5.8.post1)
  fusedPow2From: '0.5.8', // fused_topk_deepseek first in sglang==0.5.8
  pow2MaxExperts: 384, // fused_topk_deepseek at n_group 1: num_experts <= 384 (topk.py, sglang==0.5.8.post1)
  pow2MaxTopK: 8, // fused_topk_deepseek: topk <= 8 (topk.py, sglang==0.5.8.post1)
  countGates: [{ experts: 384, groups: 1, from: '0.5.6' }], // kimi_k2_moe_fused_gate, first in sglang==0.5.6
};

/**
 * GLM-4.5/4.6 (`Glm4MoeForCausalLM`) on SM100 at 16 bits, sglang==0.5.8.post1: the MoE runner stays Triton's (the
 * flashinfer_trtllm switch is for modelopt_fp4 only, server_args.py), and under graph capture the MoE layer takes
 * `forward_normal_dual_stream` (models/glm4_moe.py): the shared expert on the step's stream, the router and routed
 * experts on the alternate one, joined by `torch.add(..., out=)`: 1 kernel beyond the chain. Its router (sigmoid
 * scores plus the correction bias, n_group 1) runs on that alternate stream before the routed experts, so on the step's
 * critical path. layers/moe/topk.py `biased_grouped_topk_gpu` takes FlashInfer's `fused_topk_deepseek` only for a
 * power-of-two expert count (at n_group 1, up to 384), first in the sglang==0.5.8 wheel (absent from 0.5.7's), and
 * `moe_fused_gate` only at 32 experts a group or fewer (0.5.2 to 0.5.8.post1 alike); GLM-4.5/4.6's 160 experts, and
 * GLM-4.5-Air's 128 before 0.5.8, take the torch.compile'd `biased_grouped_topk_impl` instead. Its three `torch.topk`
 * calls (the group top-2, the group top-k, the expert top-k) are eager kernels (Inductor lowers no topk:
 * pytorch/pytorch torch/_inductor/lowering.py `make_fallback(aten.topk)`), and Inductor needs at least one kernel for
 * each stretch between them: the sigmoid and bias add, the group sum, the group mask's scatter and masked_fill, and the
 * gather, renormalization and casts after the last: at least 7 kernels where the chain counts one top-k, 6 beyond it.
 */
export const SGLANG_SM100_GLM4_MOE_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  sharedExpert: 1, // forward_normal_dual_stream: the add after the streams join
  sharedExpertBeside: true,
  torchBiasedRouter: SGLANG_TORCH_BIASED_ROUTER,
};

/**
 * A grouped router's count on a CUDA card no other table covers (Hopper, Ampere, Ada): the router only
 * (SGLANG_TORCH_BIASED_ROUTER); the model's other kernels there were not counted.
 */
export const SGLANG_CUDA_BIASED_ROUTER_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  torchBiasedRouter: SGLANG_TORCH_BIASED_ROUTER,
};

/**
 * gpt-oss (`GptOssForCausalLM`) on SM100, sglang==0.5.6 and 0.5.8.post1 alike: server_args.py takes the
 * flashinfer_mxfp4 MoE runner for its MXFP4 checkpoint on Blackwell, and layers/quantization/mxfp4.py `apply` (default
 * `flashinfer_mxfp4_moe_precision`) quantizes the hidden states with `mxfp8_quantize` and hands the router's BF16
 * logits (models/gpt_oss.py: a BF16 ReplicatedLinear with bias, so `.to(torch.bfloat16)` copies nothing) to
 * `trtllm_fp4_block_scale_moe`, whose runner at one token launches one routing kernel, gemm1 with the SwiGLU fused,
 * gemm2 and the finalize (flashinfer_python==0.5.3, 0.5.6's pin: trtllm_fused_moe_runner.cu `Runner::run`,
 * trtllm_fused_moe_routing_renormalize.cu). With the router GEMM: 6 kernels an MoE layer where the Triton chain is 7.
 */
export const SGLANG_SM100_GPT_OSS_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  trtllmMoeMxfp4: -1, // mxfp8_quantize, routing, gemm1 + SwiGLU, gemm2, finalize (flashinfer_python==0.5.3)
};

/**
 * Llama (`LlamaForCausalLM`) with a ModelOpt NVFP4 checkpoint (`modelopt_fp4`) on SM100, sglang==0.5.8.post1 and
 * 0.5.23 alike: each dense linear's `ModelOptFp4LinearMethod.apply` (layers/quantization/modelopt_quant.py, w4a4)
 * quantizes its activations with `fp4_quantize(x, layer.input_scale_inv)` in a kernel of its own before `fp4_gemm`
 * (only DeepSeek's and Qwen3.5's layers take a pre-quantized input, `_accepts_prequantized_fp4`), and models/llama.py
 * runs four linears a layer (qkv_proj, o_proj, gate_up_proj, down_proj): 4.
 */
export const SGLANG_SM100_LLAMA_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  nvfp4Layer: 4, // fp4_quantize before each of qkv_proj, o_proj, gate_up_proj, down_proj
};

/**
 * DeepSeek-V3/R1 on gfx942 (MI300X/MI325X), the sglang==0.5.7 wheel (https://pypi.org/project/sglang/0.5.7/) with
 * SGLANG_USE_AITER=1 as its ROCm image sets it: the `aiter` attention backend is not among
 * FORWARD_ABSORB_CORE_ATTENTION_BACKENDS, and the fused paths of models/deepseek_v2.py are gated to gfx950
 * (`_use_aiter_gfx95`). Beyond a plain layer's qkv and o GEMMs, norms, rotary, KV store and attention kernel, each MLA
 * layer's decode launches (`forward_absorb_prepare`, `forward_absorb_core`): the q_a_layernorm and the kv_a_layernorm
 * one after the other (the model's `alt_stream` is created on CUDA only), the q_b_proj GEMM, the W_UK bmm,
 * `torch.cat([q_nope_out, q_pe])` and `torch.cat([k_nope, k_pe])`, the W_UV bmm, and the copy its
 * `transpose(0, 1).flatten(1, 2)` makes before o_proj (the e4m3fnuz o_proj weight is not float8_e4m3fn, so the fused
 * flatten-and-quantize is not taken): 8. The widening of W_UK and W_UV to BF16 before their bmm's is counted with its
 * traffic (engines/sglang/block-fp8.ts `absorbDequant`); AITER's own kernels inside `mla_decode_fwd` and its fused
 * MoE were not read (none counted beyond the chain).
 */
export const SGLANG_GFX942_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  mlaLayer: 8, // deepseek_v2.py forward_absorb_prepare / forward_absorb_core on HIP without gfx950 (sglang==0.5.7)
};

/**
 * DeepSeek Sparse Attention models (DeepSeek-V3.2's deepseek_v32, GLM-5's glm_moe_dsa) on gfx942 (MI300X/MI325X),
 * read in the sglang==0.5.13.post1 wheel (https://pypi.org/project/sglang/0.5.13.post1/) with SGLANG_USE_AITER=1 as
 * its ROCm image sets it. server_args.py `_handle_model_specific_adjustments` gives these models the `dsa` attention
 * backend and `_set_default_dsa_backends` its tilelang decode on HIP; the model's `alt_stream` exists on ROCm only under
 * SGLANG_ROCM_USE_MULTI_STREAM (models/deepseek_v2.py) and the indexer's dual stream is off there
 * (layers/attention/dsa/dsa_indexer.py `DUAL_STREAM_TOKEN_THRESHOLD = 1024 if _is_cuda else 0`), so every kernel below
 * runs on the step's stream. Beyond a plain layer's qkv and o GEMMs, norms, rotary, KV store and attention kernel:
 * - MLA (models/deepseek_common/attention_forward_methods/forward_mla.py, gfx942 without `_use_aiter_gfx95`):
 *   `fused_qk_rmsnorm_bf16` of q_a and kv_a, the q_b_proj GEMM, the W_UK product (`batched_gemm_a8w8_a_per_token_group_
 *   prequant_w_per_batched_tensor_quant` under graph capture on float8_e4m3fnuz), the dsa backend's
 *   `concat_mla_absorb_q_general` of q's halves (layers/attention/dsa_backend.py `forward_decode`: the fused rope-and-cache
 *   path that drops it is gfx950's, `_skip_rope_for_dsa_tilelang_fused`), tilelang's second kernel (dsa/tilelang_kernel.py
 *   `tilelang_sparse_fwd` on HIP: `sparse_mla_fwd_decode_partial` then `sparse_mla_fwd_decode_combine`), the W_UV bmm and
 *   the copy of its `transpose(0, 1).flatten(1, 2)` before o_proj (the fused flatten-and-quantize takes float8_e4m3fn
 *   only): 7. W_UV's widening to BF16 is counted with its traffic (engines/sglang/block-fp8.ts `absorbDequant`).
 * - The indexer (dsa_indexer.py `Indexer.forward_cuda`, decode under graph capture, not piecewise): the wq_b and wk
 *   GEMMs (`_get_q_k_bf16`), k_norm, the rotary of q's and k's rope parts, the Hadamard rotation of q and of k
 *   (`rotate_activation`, fast_hadamard_transform on HIP), `act_quant` of q (tilelang), AITER's
 *   `indexer_k_quant_and_cache` of k (`_store_index_k_cache`), weights_proj's GEMM and the compiled head-gate scaling
 *   (`_get_logits_head_gate`), AITER's `deepgemm_fp8_paged_mqa_logits` and the fused top-k with its page-table transform
 *   (`topk_transform`, SGLANG_DSA_FUSE_TOPK on by default): 12. The block-FP8 wq_b's and wk's activation quantizations
 *   are not counted.
 * The source's own note on the q concatenation it drops on gfx950 ("eliminates the CatArrayBatchedCopy kernel that used
 * to fire once per layer per decode step (~2.6 us / layer saved)", forward_mla.py) puts one such kernel near the graph
 * kernel cost the step charges each (engines/graph-kernel.ts).
 */
export const SGLANG_GFX942_DSA_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  mlaLayer: 7, // forward_mla.py and dsa_backend.py forward_decode on gfx942 (sglang==0.5.13.post1)
  indexerLayer: 12, // dsa_indexer.py Indexer.forward_cuda, HIP decode on one stream (sglang==0.5.13.post1)
};

/** The model types whose configs SGLang serves through its DSA backend (configs/model_config.py `is_deepseek_dsa`). */
const DSA_MODEL_TYPES: readonly string[] = ['deepseek_v32', 'glm_moe_dsa'];

/**
 * Qwen3-Next (`Qwen3NextForCausalLM`) on CUDA, counted in the sglang==0.5.2 wheel (https://pypi.org/project/sglang/0.5.2/,
 * the release the model's support shipped in), under CUDA-graph capture:
 * - A Gated DeltaNet layer (models/qwen3_next.py `Qwen3GatedDeltaNet.forward`; layers/attention/
 *   hybrid_linear_attn_backend.py `MambaAttnBackend.forward_decode`): in_proj_qkvz's GEMM (in_proj_ba's beside it on the
 *   alternate stream), `fused_qkvzba_split_reshape_cat`, `causal_conv1d_update` (mamba/causal_conv1d_triton.py, in place),
 *   `fused_sigmoid_gating_delta_rule_update` (fla/fused_sigmoid_gating_recurrent.py: gating, q/k L2 norms and the
 *   delta-rule step over the state in one kernel), the gated RMSNorm (fla/layernorm_gated.py, one kernel, its inputs
 *   already contiguous) and out_proj's GEMM: 6 kernels where the plain chain's attention part is 5 (qkv GEMM, rotary, KV
 *   store, attention, o GEMM): 1. Its state read and write are priced with the cache (time/decode.ts decodeTraffic).
 * - A gated attention layer (`Qwen3HybridAttentionDecoderLayer.self_attention`, attn_output_gate): `torch.chunk` of the
 *   q/gate view leaves the gate strided, so its reshape copies it, then `torch.sigmoid(gate)` and `attn_output * gate`:
 *   3 (q's copy and norm are the per-head q-norm count, qkNormKernels).
 * - An MoE layer (models/qwen2_moe.py `Qwen2MoeSparseMoeBlock.forward_normal_dual_stream`, the decode batch under 1024
 *   tokens): the shared expert and its sigmoid gate on the step's stream beside the router and routed experts on the
 *   alternate one, so only the add after the join (1); and moe_align_block_size's `sorted_ids.fill_` where the padded
 *   buffer, top-k x tokens + (E + 1) x (BLOCK_SIZE_M - 1), exceeds 4096 (layers/moe/fused_moe_triton/
 *   moe_align_block_size.py): always at 512 experts and get_default_config's BLOCK_SIZE_M of 16 (1).
 */
export const SGLANG_QWEN3_NEXT_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  recurrentLayer: 1, // Qwen3GatedDeltaNet decode: the gated RMSNorm beyond the attention chain (sglang==0.5.2)
  gatedAttentionLayer: 3, // attn_output_gate: the gate's copy, sigmoid and multiply (sglang==0.5.2)
  sharedExpert: 1, // forward_normal_dual_stream: the add after the streams join (sglang==0.5.2)
  sharedExpertBeside: true,
  moeLayer: 1, // moe_align_block_size: sorted_ids.fill_ above 4096 padded slots (sglang==0.5.2)
};

/**
 * MiniMax-M2 (`MiniMaxM2ForCausalLM`, model_type minimax_m2, use_qk_norm with qk_norm_type "per_layer"): its q and k
 * norms are RMSNorms over every head's width (q 48 x 128, k 8 x 128), not per head, so under attention TP each rank's
 * shard lacks the other heads' squares. Since sgl-project/sglang#14416 (merged 2025-12, "Each RMSNormTP contains 3
 * kernels: summation, all_reduce, and the remaining norm operation. This implementation combines 3x2=6 steps into 3")
 * the layer runs `MiniMaxM2QKRMSNorm._forward_naive` (models/minimax_m2.py at 01b5f572b7b678e2fa5a727881f1ff3ab4dd3c6d):
 * `rms_sumsq_serial` (one Triton kernel for both sums of squares), `attn_tp_all_reduce` of that [2B] fp32 buffer when
 * attention TP > 1, and `rms_apply_serial` (one Triton kernel writing both normalized outputs). The fused
 * `fused_parallel_qknorm` replaces them only on CUDA with SGLANG_USE_FUSED_PARALLEL_QKNORM set (off by default), never
 * on ROCm. So 2 kernels per attention layer beyond the chain and 1 all-reduce under TP. Above one sequence the
 * `q.contiguous(), k.contiguous()` before them copy the strided split of qkv (2 kernels) where the chain counts q's one
 * copy (stridedQCopyKernels): that one more is not counted.
 */
export const SGLANG_MINIMAX_M2_KERNELS: DecodeFeatureKernels = {
  ...NO_FEATURE_KERNELS,
  attentionLayer: 2, // rms_sumsq_serial, rms_apply_serial (sgl-project/sglang#14416; models/minimax_m2.py)
  attentionTpAllReduces: 1, // attn_tp_all_reduce(sum_sq) under attention TP > 1 (models/minimax_m2.py _forward_naive)
};

/**
 * SGLang's count where it was read, by model type and GPU: the DeepSeek-V3 family on the trtllm_mla attention backend
 * and on gfx942's aiter (`gfx`, an AMD card's target), each where the build decodes MLA with that backend
 * (mla-backend.ts: by release, or the backend the run named), the DeepSeek Sparse Attention models on gfx942,
 * on SM100's Triton MLA in the release it was counted in (sglangTritonMlaCounted) and on Hopper's in 0.4.1-0.4.5
 * (sglangHopperTritonMlaCounted, its rotary by release), Qwen3-Next on CUDA, MiniMax-M2 on any GPU, Qwen3-MoE, GLM-4.5/4.6, gpt-oss and Llama on SM100, and the grouped router
 * of DeepSeek-V3, Kimi K2 and GLM-4.5 on other CUDA cards. A build whose Triton MLA decode runs two passes over the
 * cache (mla-backend.ts sglangMlaTwoPass) says so beside them (mlaTwoPass).
 */
export function sglangDecodeFeatureKernels(
  modelType: string,
  cc: number,
  gfx?: string,
  build?: EngineBuild,
): DecodeFeatureKernels | undefined {
  const k = releaseFeatureKernels(modelType, cc, gfx, build);
  if (!sglangMlaTwoPass(modelType, cc, build)) return k;
  return { ...(k ?? NO_FEATURE_KERNELS), mlaTwoPass: true };
}

function releaseFeatureKernels(
  modelType: string,
  cc: number,
  gfx: string | undefined,
  build: EngineBuild | undefined,
): DecodeFeatureKernels | undefined {
  const deepseek = modelType === 'deepseek_v3' || modelType === 'kimi_k2';
  const mlaBackend = sglangMlaDecodeBackend(modelType, cc, build);
  if (gfx === 'gfx942' && deepseek && mlaBackend === 'aiter') return SGLANG_GFX942_DEEPSEEK_KERNELS;
  if (
    gfx === 'gfx942' &&
    deepseek &&
    mlaBackend === 'triton' &&
    sglangTritonMlaCounted(build, true)
  )
    return SGLANG_GFX942_TRITON_MLA_DEEPSEEK_KERNELS;
  if (gfx === 'gfx942' && DSA_MODEL_TYPES.includes(modelType)) return SGLANG_GFX942_DSA_KERNELS;
  if (deepseek && mlaBackend === 'trtllm_mla') return SGLANG_SM100_DEEPSEEK_KERNELS;
  if (deepseek && sm100(cc) && mlaBackend === 'triton' && sglangTritonMlaCounted(build, false))
    return SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS;
  if (deepseek && hopper(cc) && mlaBackend === 'triton' && sglangHopperTritonMlaCounted(build))
    return sglangHopperRopeFused(build)
      ? SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS
      : SGLANG_HOPPER_TRITON_MLA_TORCH_ROPE_DEEPSEEK_KERNELS;
  if (modelType === 'qwen3_next' && gfx === undefined) return SGLANG_QWEN3_NEXT_KERNELS;
  if (modelType === 'minimax_m2') return SGLANG_MINIMAX_M2_KERNELS;
  if (!sm100(cc))
    return cc > 0 && gfx === undefined && SGLANG_TORCH_BIASED_ROUTER.modelTypes.includes(modelType)
      ? SGLANG_CUDA_BIASED_ROUTER_KERNELS
      : undefined;
  if (modelType === 'qwen3_moe') return SGLANG_SM100_QWEN3_MOE_KERNELS;
  if (modelType === 'glm4_moe') return SGLANG_SM100_GLM4_MOE_KERNELS;
  if (modelType === 'gpt_oss') return SGLANG_SM100_GPT_OSS_KERNELS;
  if (modelType === 'llama') return SGLANG_SM100_LLAMA_KERNELS;
  return undefined;
}
