/**
 * Kernels vLLM's CUDA-graph decode step launches for DeepSeek-style parts of a model beyond the counted chain
 * (FrameworkProfile.decodeFeatureKernels; time/decode-host.ts), counted in the v0.11.0 wheel
 * (https://pypi.org/project/vllm/0.11.0/). The model forward is compiled by Inductor, but the attention layer, the
 * fused-MoE layer and each block-FP8 linear are custom ops it cannot see into: the torch calls inside them launch one
 * kernel each in the graph.
 *
 * - MLA (vllm/model_executor/layers/mla.py forward_native; v1/attention/backends/mla/common.py forward and
 *   _v_up_proj; backends/mla/flashmla.py _forward_decode): beyond a plain layer's qkv and o GEMMs, norms, KV store
 *   and attention kernel, a third projection (q_b_proj), the two latent RMSNorms (q_a_layernorm, kv_a_layernorm), the
 *   absorbed W_UK bmm, the torch.cat of the query halves, FlashMLA's split-KV combine kernel after its decode kernel,
 *   the W_UV bmm and the copy of its output: 8.
 * - A shared expert (deepseek_v2.py DeepseekV2MLP run by SharedFusedMoE): gate_up GEMM, SiluAndMul, down GEMM, and
 *   the routed output's scaling and sum with it after the op: 4.
 * - A router with DeepSeek-V3's score correction bias (fused_moe.py fused_grouped_topk, VLLM_USE_FUSED_MOE_GROUPED_TOPK
 *   on by default): sigmoid, the bias add and the cast before `ops.grouped_topk`, where the counted chain has one
 *   top-k kernel: 3. GLM-4.5's MoE builds the same gate (glm4_moe.py: e_score_correction_bias, use_grouped_topk).
 * - A block-FP8 linear (quantization/utils/fp8_utils.py apply_w8a8_block_fp8_linear): per_token_group_quant_fp8
 *   before the GEMM on every generation that runs the blockwise path (CUTLASS on SM90 and SM100, Triton elsewhere): 1.
 *   On compute capability 9.0 only (`current_platform.is_device_capability(90)`, the CUTLASS SM90 kernel's limit) the
 *   input is first padded to a multiple of 4 rows (`4 - M % 4` rows, so a batch of 4 pads too), which torch's
 *   constant_pad_nd runs as a fill and a copy (pytorch/pytorch aten/src/ATen/native/PadNd.cpp): 2 more.
 * - Block-FP8 experts (fused_moe.py fused_experts_impl): moe_kernel_quantize_input before the w13 and the w2
 *   fused_moe kernels: 2.
 *
 * On ROCm (gfx942: MI300X and MI325X; gfx950: MI355X) a block-scaled checkpoint takes neither CUTLASS nor DeepGEMM,
 * but its linears quantize their activations per token group all the same: the v0.8.5 wheel's
 * `apply_w8a8_block_fp8_linear` (quantization/utils/fp8_utils.py, https://pypi.org/project/vllm/0.8.5/) runs
 * `per_token_group_quant_fp8` (its Triton `_per_token_group_quant_fp8` off CUDA) before `w8a8_block_fp8_matmul` on
 * ROCm, and at vllm-project/vllm@007d50058a06dec0f82472d63c819244d460c40d `W8A8BlockFp8LinearOp` does the same in
 * `_run_triton` (AITER off) and `_run_aiter` (`rocm_aiter_ops.group_fp8_quant` or the Triton quant before AITER's
 * `gemm_a8w8_blockscale`): 1 a linear. The v0.8.5 wheel's `fused_experts_impl` (fused_moe/fused_moe.py) quantizes each
 * fused_moe kernel's input with `per_token_group_quant_fp8` on every platform: 2 an MoE layer where the Triton fused_moe
 * runs the experts (AITER's MoE, time/aiter-moe.ts, quantizes inside its own call).
 */
import { isHopper, isSm100 } from '../../compute-capability.js';
import type { DecodeFeatureKernels } from '../../memory/decode-feature-kernels.js';

export const VLLM_DECODE_FEATURE_KERNELS: DecodeFeatureKernels = {
  mlaLayer: 8, // vLLM v0.11.0 MLA decode (FlashMLA), beyond a plain layer
  sharedExpert: 4, // DeepseekV2MLP in SharedFusedMoE, and the sum
  biasedRouter: { modelTypes: ['deepseek_v3', 'glm4_moe'], kernels: 3 }, // fused_grouped_topk's torch ops
  blockFp8Linear: 1, // per_token_group_quant_fp8, any generation's blockwise path
  blockFp8PadSm90: 2, // the row pad's fill and copy, CUTLASS SM90 path (cc 9.0)
  blockFp8Moe: 2, // moe_kernel_quantize_input twice
  // per_token_group_quant_fp8 before each ROCm blockwise GEMM: vllm 0.8.5 wheel fp8_utils.py
  // apply_w8a8_block_fp8_linear, vllm-project/vllm@007d5005 W8A8BlockFp8LinearOp._run_triton / _run_aiter
  rocmBlockFp8Targets: ['gfx942', 'gfx950'],
};

/**
 * gpt-oss (`gpt_oss`) on the 10.x family: its MXFP4 experts run FlashInfer's `trtllm_fp4_block_scale_moe` with BF16
 * activations (engines/moe-call.ts FLASHINFER_TRTLLM_MXFP4_MOE): after the router GEMM (a BF16 ReplicatedLinear with
 * bias, so `router_logits.to(torch.bfloat16)` copies nothing), one routing kernel, gemm1 with the SwiGLU fused, gemm2
 * and the finalize (FlashInfer's runner as engines/sglang/decode-kernels.ts counts it, less SGLang's mxfp8_quantize,
 * which vLLM's BF16 default skips: the 0.10.1 wheel's Mxfp4MoEMethod.apply): 5 kernels an MoE layer where the Triton
 * chain is 7.
 */
export const VLLM_SM100_GPT_OSS_KERNELS: DecodeFeatureKernels = {
  ...VLLM_DECODE_FEATURE_KERNELS,
  trtllmMoeMxfp4: -2, // routing, gemm1 + SwiGLU, gemm2, finalize (vllm 0.10.1 Mxfp4MoEMethod.apply)
};

/**
 * gpt-oss (`gpt_oss`) on compute capability 9.x where vLLM's default MXFP4 MoE backend is triton_kernels' `matmul_ogs`
 * (engines/vllm/mxfp4-backend.ts: from 0.12.0 on) and the vendored triton_kernels is v3.6.0, whose routing is built
 * from composable metadata kernels (triton-lang/triton#8375 "deprecated triton_kernels.routing"). Per MoE layer after
 * the router's top-k, `make_routing_data` (vllm/model_executor/layers/fused_moe/gpt_oss_triton_kernels_moe.py, the
 * modular `OAITritonExperts.apply` path) launches, each its own kernel inside the MoE custom op:
 * `topk_ids.to(torch.int16)`, `topk_weights.to(torch.bfloat16)`, `torch.zeros` of the bitmatrix, `pack_bitmatrix`,
 * `topk_ids == -1` and `torch.where` (6); `routing_from_bitmatrix` builds a `SparseMatrix`, whose
 * `make_bitmatrix_metadata` runs `sum_bitmatrix_rows` (a `torch.zeros` and `_sum_bitmatrix_rows`),
 * `_bitmatrix_metadata_compute_stage1` and `_stage2` (4; triton_kernels tensor_details/bitmatrix.py and
 * bitmatrix_details/sum_bitmatrix_rows.py), then `make_ragged_tensor_metadata` (`_ragged_tensor_metadata_memset`,
 * `_ragged_tensor_metadata_compute`: 2; tensor_details/ragged_tensor.py) and the gate gather
 * `vals.flatten()[combine_indx]`, whose index is int32 (bitmatrix.py's `combined_indx`), which ATen's `index` casts to
 * int64 before its gather kernel (`make_info`, pytorch/pytorch@06b24a9d
 * aten/src/ATen/native/TensorAdvancedIndexingUtils.h, the int32 support of pytorch/pytorch#86309): 2. 14 in all. The
 * experts then run `matmul_ogs` for w13 with the SwiGLU fused and for w2 with its `_reduce` over the top-k
 * (vllm-project/vllm#39714). Each `matmul_ogs` call launches more than its GEMM (the 0.19.1 wheel's
 * vllm/third_party/triton_kernels/matmul_ogs.py): w13, which gathers, first runs `torch.div(gather_indx.src_indx,
 * routing_data.n_expts_act, rounding_mode='trunc')` (line 565; its MXFP4 weights rule out split-K, line 428, so no
 * reduce follows it); w2, which scatters over n_expts_act 4 > 1, runs `scatter_indx.src_indx != -1` (line 658) for the
 * mask its `reduce` kernel (reduce.py `_reduce`, one launch) reads: 2 elementwise kernels a layer. The counted chain
 * (FrameworkProfile.moeRoutingKernels and the dense MLP's three) has the router GEMM, the top-k, moe_align_block_size,
 * the two GEMMs, the activation and moe_sum: 14 routing kernels beyond the chain's 2 (align, activation), and the 2
 * elementwise ones, = 14 more a layer. vllm-project/vllm#39714 (v0.20.1, 2x H100) names the same build "the 14-kernel
 * chain for computing routing data" at M <= 64, the count above. Releases: v0.19.1 (the vLLM blog's FP8 KV-cache build)
 * through v0.20.x (vllm-project/vllm#39714 at v0.20.1); vllm-project/vllm#43135 (2026-05-19) pins triton_kernels back
 * to v3.5.1, whose fused `routing()` has no such chain, in a release not read here, so the bound is 0.21.0. Read:
 * `make_routing_data` at vllm-project/vllm@04bec4cd, the v3.6 `SparseMatrix` form of `routing_from_bitmatrix` in a
 * later copy of the same file, triton_kernels at triton-lang/triton@0b8b2666 (bitmatrix.py), @12d909bf
 * (sum_bitmatrix_rows.py), @174e5788 (ragged_tensor.py).
 *
 * Before 0.19.0 the Hopper path is the monolithic one (Mxfp4MoEMethod.is_monolithic for the TRITON backend:
 * `triton_kernel_moe_forward` takes the router logits, no vLLM top-k runs), read in the PyPI wheels:
 * - 0.12.0 to 0.16.0 (vllm/third_party/triton_kernels the same files in the 0.12.0, 0.13.0, 0.14.0, 0.15.0 and 0.16.0
 *   wheels; recounted in vllm-0.12.0, -0.14.0 and -0.16.0-cp38-abi3-manylinux_2_31_x86_64.whl, sha256 596673ed...,
 *   9362cadd... and f066b2a2..., docs/time-model.md has them whole): triton_kernels' fused `routing()` runs
 *   `_topk_forward` (topk.py:42, which zeroes its own column-sum scratchpad, so the bitmatrix sum needs no memset),
 *   `_sum_bitmatrix_rows` (reduction_details/reduce_bitmatrix.py:101), `_combined_routing_memset` and
 *   `_combined_routing_compute` (routing.py:125 and :137, SortTokens): 4, where the chain has the top-k and
 *   moe_align_block_size. `matmul_ogs` fuses the SwiGLU into w13 and hands the kernel `gather_indx.src_indx` as it is
 *   (matmul_ogs.py:482: no `torch.div`); w2's scatter over 4 experts a token is not fused (`can_use_fused_scatter`
 *   needs `n_expts_act == 1`, line 369), so `reduce_grouped` (line 521) runs `_reduce_grouped`, with no mask kernel
 *   before it, in moe_sum's place; w13 runs no reduce where split-K is 1, which vLLM sets on cc 9.0 from 0.13.0
 *   (quantization/utils/mxfp4_utils.py `"split_k": 1`): 8 kernels a layer against the chain's 7, 1 more. The 0.12.0
 *   wheel leaves split-K to triton_kernels' `compute_split_k`, which can add a w13 reduce where the grid is under the
 *   SM count: not counted.
 * - 0.17.0 and 0.18.0 (their vendored triton_kernels the same files, the v3.6 `SparseMatrix` API; wheels recounted in
 *   vllm-0.17.0 and -0.18.0-cp38-abi3-manylinux_2_31_x86_64.whl, sha256 0296670a... and 0bc51491...): `legacy_routing`
 *   (fused_moe/gpt_oss_triton_kernels_moe.py:145) runs `topk` (line 160: `_topk_forward`, topk.py:54, then its
 *   `SparseMatrix` builds `make_bitmatrix_metadata`: `sum_bitmatrix_rows`' `torch.zeros` and `_sum_bitmatrix_rows`,
 *   tensor_details/bitmatrix_details/sum_bitmatrix_rows.py:87 and :91, `_bitmatrix_metadata_compute_stage1` and
 *   `_stage2`, tensor_details/bitmatrix.py:128 and :139), then `legacy_routing_from_bitmatrix` builds a second
 *   `SparseMatrix` of the same mask (line 125: the same 4 again; vllm-project/vllm#37683's three kernels twice),
 *   `make_ragged_tensor_metadata` (line 128: memset, compute, tensor_details/ragged_tensor.py:180 and :187) and the
 *   gate gather `vals.flatten()[combine_indx]` (line 132: the int32 index's cast to int64 and the gather, as above): 13
 *   with the top-k. `matmul_ogs` (vendored matmul_ogs.py, the same tree as the 0.19.1 wheel's) runs w13, which gathers,
 *   after `torch.div(gather_indx.src_indx, routing_data.n_expts_act, rounding_mode='trunc')` (line 565; MXFP4 weights
 *   rule out split-K, line 428), with the SwiGLU fused, and w2, whose top-k reduce is `scatter_indx.src_indx != -1`
 *   (line 658) and `reduce`'s kernel (line 664, reduce.py:221): 19 kernels a layer against the chain's 7, 12 more.
 */
export const VLLM_SM90_GPT_OSS_KERNELS: DecodeFeatureKernels = {
  ...VLLM_DECODE_FEATURE_KERNELS,
  tritonKernelsMxfp4Routing: [
    // routing(): _topk_forward, _sum_bitmatrix_rows, memset, compute; w13, w2, _reduce_grouped (vllm 0.16.0 wheel)
    { kernels: 1, from: '0.12.0', before: '0.17.0' },
    // topk and two SparseMatrix builds, ragged metadata, gather (its int32 index's int64 cast and the index kernel);
    // w13's src_indx div (matmul_ogs.py:565), w2's mask (:658) and reduce (vllm 0.17.0 and 0.18.0 wheels)
    { kernels: 12, from: '0.17.0', before: '0.19.0' },
    // 14 routing-data kernels (make_routing_data, triton_kernels v3.6.0, the gather's int64 cast included) less
    // Marlin's align and activation, and matmul_ogs' w13 src_indx div and w2 src_indx != -1 mask (vllm 0.19.1 wheel)
    { kernels: 14, from: '0.19.0', before: '0.21.0' },
  ],
};

/**
 * MiniMax-M2 (`MiniMaxM2ForCausalLM`, model_type minimax_m2): its q and k RMSNorms span every head (q 48 x 128, k 8 x
 * 128), so under TP each rank's shard lacks the other heads' squares. Since vllm-project/vllm#31493 (opened 2025-12-29,
 * "Fuses QKNorm in tensor-parallel mode so that only a single all_reduce is launched"; in the v0.16 line the rows ran)
 * models/minimax_m2.py calls `MiniMaxText01RMSNormTP.forward_qk` (layers/mamba/linear_attn.py): q's and k's mean
 * squares in fp32, `torch.cat` into one [B, 2] fp32 tensor, one `tensor_model_parallel_all_reduce` of it when TP > 1
 * (the same two fp32 a token as SGLang's, time/decode-host.ts QK_NORM_STAT_BYTES), then both normalizations. Those are
 * plain torch ops in the Inductor-compiled forward, so their kernels are Inductor's fusion, which the source does not
 * fix: none counted beyond the chain (the all-reduce, a custom op, cuts the fusion there). A fused Lamport all-reduce +
 * RMSNorm kernel (`minimax_allreduce_rms_qk`, ported from TensorRT-LLM in vllm-project/vllm#37045, opened 2026-03-14)
 * came after the rows' run: behind the opt-in `fuse_minimax_qk_norm` pass (vllm-project/vllm#39782), then the default
 * path (vllm-project/vllm#43410, 2026-05); a build with it is not told apart here.
 */
export const VLLM_MINIMAX_M2_KERNELS: DecodeFeatureKernels = {
  ...VLLM_DECODE_FEATURE_KERNELS,
  attentionTpAllReduces: 1, // forward_qk: all-reduce of cat([q_var, k_var]) under TP > 1 (vllm-project/vllm#31493)
};

/** vLLM's decode kernels beyond the counted chain for a model type on a GPU of compute capability `cc`. */
export const vllmDecodeFeatureKernels = (modelType: string, cc: number): DecodeFeatureKernels => {
  if (modelType === 'minimax_m2') return VLLM_MINIMAX_M2_KERNELS;
  if (modelType === 'gpt_oss' && isHopper(cc)) return VLLM_SM90_GPT_OSS_KERNELS;
  return modelType === 'gpt_oss' && isSm100(cc)
    ? VLLM_SM100_GPT_OSS_KERNELS
    : VLLM_DECODE_FEATURE_KERNELS;
};
