/**
 * The calls SGLang's eager extend (prefill) forward issues from Python for each decoder layer of DeepSeek-V3/R1
 * (FrameworkProfile.eagerPrefillLayerKernels; time/graph-step.ts), counted in the sglang==0.5.6.post1 wheel
 * (https://pypi.org/project/sglang/0.5.6.post1/) for its block-FP8 checkpoint over tensor parallelism without DP
 * attention, a prompt with no cached prefix. Each is one Python-side launch (a torch op or a library call that starts
 * GPU work; the kernels a library call starts from C++ count once); views, splits and `torch.empty` allocations are
 * not counted. The tensor-parallel all-reduces are not in these figures (graph-step.ts adds them, and takes out the
 * norms the engine fuses into them).
 *
 * MLA in extend mode, both GPUs below (models/deepseek_v2.py `forward_normal_prepare`, taken through
 * `forward_normal_chunked_kv_prepare` for the trtllm_mla backend's MHA_CHUNKED_KV and `forward_normal_one_shot_prepare`
 * for FA3's MHA_ONE_SHOT, `_handle_attention_backend`, `handle_attention_trtllm_mla`): the input RMSNorm; the fused
 * q_a/kv_a projection (`fused_qkv_a_proj_with_mqa`, a block-FP8 linear: the activation's per-token-group quantization,
 * then the GEMM, layers/quantization/fp8_utils.py `deepgemm_w8a8_block_fp8_linear_with_fallback`: 2); q_a_layernorm;
 * q_b_proj (2); kv_a_layernorm; kv_b_proj (2) — and kv_b_proj again on the same input after the rotary (the CUDA branch
 * computes `kv = self.kv_b_proj(kv_a)[0]` twice: 2); the rotary on q_pe and k_pe in place
 * (`apply_rope_with_cos_sin_cache_inplace`, layers/rotary_embedding.py `forward_cuda`, head size 64); the copy of q_pe
 * back into q (`q[..., qk_nope_head_dim:] = q_pe`); the latent's store in the KV pool (`set_mla_kv_buffer_triton`,
 * mem_cache/memory_pool.py); k's concatenation (`concat_and_cast_mha_k_triton`, 16 local heads over TP 8, not the
 * 128-head `concat_mla_k`); the attention kernel (`trtllm_ragged_attention_deepseek`, layers/attention/
 * trtllm_mla_backend.py `forward_extend`; FA3's `flash_attn_varlen_func`, flashattention_backend.py); o_proj (2); the
 * post-attention RMSNorm: 19.
 * - A dense layer's MLP (the first 3, DeepseekV2MLP): gate_up_proj (2), `silu_and_mul`, down_proj (2): 5; 24 a layer.
 * - An MoE layer on SM100 (server_args.py `_handle_model_specific_adjustments`: flashinfer_trtllm MoE runner for fp8,
 *   so the shared expert stays out of the routed MoE): the shared expert as a dense MLP (5); the router's BF16 GEMM
 *   (MoEGate `F.linear`, above 16 tokens); the top-k bypassed (layers/moe/topk.py BYPASSED); in layers/quantization/
 *   fp8.py `apply_with_router_logits`: the hidden states' per-token-group quantization, the scales' transposed copy,
 *   the correction bias's cast to BF16, the logits' cast to float32 and the `trtllm_fp8_block_scale_moe` call (5); the
 *   shared output's add (DeepseekV2MoE `forward_normal`, no second stream outside graph capture): 12; 31 a layer.
 * - An MoE layer on Hopper (the Triton MoE runner, the shared expert fused into the routed experts,
 *   `determine_num_fused_shared_experts`): the router's GEMM, the logits' cast to float32 and `moe_fused_gate`
 *   (`biased_grouped_topk_gpu`), then layers/moe/fused_moe_triton/fused_moe.py `fused_experts_impl`:
 *   `moe_align_block_size`, the activation's quantization and the w13 kernel, `silu_and_mul`, the intermediate's
 *   quantization and the w2 kernel, `moe_sum_reduce`: 10; 29 a layer.
 * Not counted: the forward's own calls outside the layers (embedding, final norm, logits, attention metadata), about
 * ten, and the host work between the calls (the layer communicator's and backend dispatch's Python).
 *
 * Under DP attention (`--enable-dp-attention`, moe_a2a_backend "none" as the DeepSeek recipes leave it), the same wheel:
 * layers/dp_attention.py gives each rank attention TP tp / dp and every layer's MLP (the dense ones too:
 * moe_dense_tp_size unset) all ranks' tokens (layers/communicator.py LayerScatterModes, mlp_mode FULL). An extend in
 * the batch gathers by all-reduce (DpPaddingMode SUM_LEN), so `_gather_hidden_states_and_residual` replaces the fused
 * add-norm after attention by the residual's add (`hidden_states += residual`) and a plain RMSNorm (before the gather
 * at attention TP 1, after it above), and `dp_gather_partial` (`_dp_gather_via_all_reduce`) adds the global buffer's
 * `fill_(0)`, the `memcpy_triton` of the rank's tokens into it, the all-reduce and its result's copy back
 * (`global_tokens[:] = ...`; custom all-reduce returns a new tensor below its 8 MiB, 585 gathered tokens of 7168 in
 * BF16; NCCL's in place above, whose self-copy returns early: counted, a call at most); after the MLP
 * `CommunicateSummableTensorPairFn._scatter_hidden_states` runs `dp_scatter` (`fill_(0)`, `memcpy_triton`): 6 calls a
 * layer; above attention TP 1 the residual is scattered back from the gathered buffer too (`dp_scatter`, 2 more): 8.
 * The attention's own calls do not change (128 local heads at attention TP 1 take `concat_mla_k`, one call as the
 * Triton concat is). The all-reduces, two a layer (the gather's, the MLP's over all ranks), never fused with a norm
 * (server_args.py enables FlashInfer's fusion only without DP attention), are added in graph-step.ts. A rank with no
 * request runs an idle batch (managers/scheduler_dp_attn_mixin.py) whose attention does no work: fewer calls than the
 * prefilling rank's, which sets the step.
 * - Expert parallelism (`--ep-size`) on the Triton MoE: the router's ids remapped to local experts
 *   (`local_expert_mapping[topk_ids]`, layers/moe/token_dispatcher/standard.py StandardDispatcher.dispatch): 1 more. The
 *   flashinfer_trtllm MoE takes the router logits whole (top-k BYPASSED, not remapped): none.
 *
 * On gfx942 (MI300X/MI325X), the sglang==0.5.7 wheel (https://pypi.org/project/sglang/0.5.7/) with SGLANG_USE_AITER=1
 * as its ROCm image sets it: the aiter backend takes MHA for an extend without speculation (models/deepseek_v2.py
 * `handle_attention_aiter`), so `forward_normal_prepare` again, with these differences. Each block-FP8 linear is
 * `aiter_per1x128_quant` then `gemm_a8w8_blockscale` (layers/quantization/fp8_utils.py `aiter_w8a8_block_fp8_linear`:
 * 2, as DeepGEMM's); kv_b_proj runs once (2 where the CUDA count has 4); the rotary is AITER's in-place
 * `rope_cached_positions_2c_fwd_inplace` (`get_rope_wrapper` takes `aiter.rotary_embedding.get_rope`: 1); the latent's
 * store off CUDA and gfx950 writes kv_a and k_pe into the latent buffer and then the pool (`_set_mla_kv_buffer`: two
 * copies and `set_kv_buffer`, 3 where CUDA's `set_mla_kv_buffer` is 1); k's concatenation is
 * `concat_and_cast_mha_k_triton` (`_concat_and_cast_mha_k`, HIP with aiter) and the attention AITER's
 * `flash_attn_varlen_func` (layers/attention/aiter_backend.py `forward_extend`, no cached prefix): 19 for the MLA part,
 * 24 for a dense layer. An MoE layer, the shared expert fused in (`determine_num_fused_shared_experts`, gfx942): the
 * router's `F.linear` (MoEGate, `aiter_dsv3_router_gemm` is gfx950's), in layers/moe/topk.py the correction bias's cast
 * to the logits' dtype, `aiter_biased_grouped_topk` and `fused_append_shared_experts`, then AITER's `fused_moe`
 * (layers/quantization/fp8.py `maybe_apply_hip_fused_experts`, QuantType.per_128x128): its `moe_sorting`, the
 * activation's quantization and the fused-expert kernel, 3 (aiter/fused_moe.py `fused_moe_`, its one-stage path; the
 * two-stage path launches one more); no routed-scaling multiply (fused in the top-k under AITER, DeepseekV2MoE
 * `forward_normal`): 7, 26 a layer. The DP-attention gathers and the expert-id remap under expert parallelism are the
 * same code as on CUDA (the figures above).
 */

import { isHopper, isSm100 } from '../../compute-capability.js';
import type { PrefillParallel } from '../../memory/framework-profile.js';

/** Per decoder layer: a dense layer's calls and an MoE layer's (FrameworkProfile.eagerPrefillLayerKernels). */
export interface EagerLayerKernels {
  dense: number;
  moe: number;
}

/** DeepSeek-V3/R1 on SM100: trtllm_mla's ragged MHA prefill, flashinfer_trtllm's block-FP8 MoE, shared expert apart. */
export const SGLANG_SM100_DEEPSEEK_EXTEND: EagerLayerKernels = {
  dense: 24, // https://pypi.org/project/sglang/0.5.6.post1/ deepseek_v2.py forward_normal_prepare + DeepseekV2MLP
  moe: 31, // the same wheel: + shared expert, router GEMM, fp8.py apply_with_router_logits (5), the output's add
};

/** DeepSeek-V3/R1 on Hopper: FA3's varlen MHA prefill, the Triton MoE with the shared expert fused in. */
export const SGLANG_SM90_DEEPSEEK_EXTEND: EagerLayerKernels = {
  dense: 24, // https://pypi.org/project/sglang/0.5.6.post1/ deepseek_v2.py forward_normal_prepare + DeepseekV2MLP
  moe: 29, // the same wheel: + router GEMM, float32 cast, moe_fused_gate, fused_experts_impl (7)
};

/** DeepSeek-V3/R1 on gfx942: AITER's MHA prefill, block-FP8 linears and fused MoE, the shared expert fused in. */
export const SGLANG_GFX942_DEEPSEEK_EXTEND: EagerLayerKernels = {
  dense: 24, // https://pypi.org/project/sglang/0.5.7/ deepseek_v2.py forward_normal_prepare + DeepseekV2MLP on HIP
  moe: 26, // the same wheel: + router F.linear, topk.py's bias cast, aiter top-k, shared-expert append, fused_moe (3)
};

/** DP attention at attention TP 1: the residual's add, the gather's fill, copy-in and copy-out, the scatter's two. */
export const SGLANG_DP_ATTENTION_LAYER_CALLS = 6; // https://pypi.org/project/sglang/0.5.6.post1/ layers/communicator.py
/** Above attention TP 1 the residual is scattered from the gathered buffer too (`dp_scatter`: fill_, memcpy_triton). */
export const SGLANG_DP_ATTENTION_TP_LAYER_CALLS = 8; // the same wheel: _gather_hidden_states_and_residual
/** The Triton MoE's expert-id remap under expert parallelism. */
export const SGLANG_EP_TRITON_MOE_CALLS = 1; // the same wheel: layers/moe/token_dispatcher/standard.py dispatch

/**
 * SGLang's count where it was read: DeepSeek-V3/R1 (config model_type deepseek_v3) with block-FP8 weights on SM100
 * (compute capability 10.x), Hopper (9.x) and gfx942 (`gfx`, an AMD card's target), over TP or DP attention
 * (`parallel`), expert-parallel or not. Elsewhere (other models, other weights, other gfx targets): undefined.
 */
export function sglangEagerPrefillKernels(
  modelType: string,
  cc: number,
  blockFp8: boolean,
  parallel: PrefillParallel = { dpAttention: false, attentionTp: 1, ep: 1 },
  gfx?: string,
): EagerLayerKernels | undefined {
  if (modelType !== 'deepseek_v3' || !blockFp8) return undefined;
  const sm100 = isSm100(cc);
  const gfx942 = gfx === 'gfx942';
  if (!sm100 && !isHopper(cc) && !gfx942) return undefined;
  const base = gfx942
    ? SGLANG_GFX942_DEEPSEEK_EXTEND
    : sm100
      ? SGLANG_SM100_DEEPSEEK_EXTEND
      : SGLANG_SM90_DEEPSEEK_EXTEND;
  const dp = !parallel.dpAttention
    ? 0
    : parallel.attentionTp > 1
      ? SGLANG_DP_ATTENTION_TP_LAYER_CALLS
      : SGLANG_DP_ATTENTION_LAYER_CALLS;
  const ep = !sm100 && parallel.ep > 1 ? SGLANG_EP_TRITON_MOE_CALLS : 0;
  if (dp === 0 && ep === 0) return base;
  return { dense: base.dense + dp, moe: base.moe + dp + ep };
}
