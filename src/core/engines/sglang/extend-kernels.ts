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
 */

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

/**
 * SGLang's count where it was read: DeepSeek-V3/R1 (config model_type deepseek_v3) with block-FP8 weights on SM100
 * (compute capability 10.x) and Hopper (9.x). Elsewhere (other models, other weights, ROCm): undefined.
 */
export function sglangEagerPrefillKernels(
  modelType: string,
  cc: number,
  blockFp8: boolean,
): EagerLayerKernels | undefined {
  if (modelType !== 'deepseek_v3' || !blockFp8) return undefined;
  if (cc >= 10 && cc < 11) return SGLANG_SM100_DEEPSEEK_EXTEND;
  if (cc >= 9 && cc < 10) return SGLANG_SM90_DEEPSEEK_EXTEND;
  return undefined;
}
