/**
 * The kernels ggml-cuda launches for an MoE layer's routing and expert sum in a decode step, beyond a dense MLP's, by
 * the build's decode graph (FrameworkProfile.moeRoutingKernelsByGraph).
 *
 * ggml's MoE layer (src/llama-graph.cpp build_moe_ffn; ggml-org/llama.cpp @4227c9be4268ac844921b90f31595f81236bd317,
 * August 2025, and @49bfddeca18e62fa3d39114a23e9fcbdf8a22388, March 2026, the trees llama-cpp-python 0.3.16 and 0.3.17
 * vendor): the router's matmul (ffn_gate_inp, written F32 by convert_hf_to_gguf.py, "Some tensor types are always in float32",
 * and left so by src/llama-quant.cpp, "do not quantize expert gating tensors": a float mat-vec with no q8_1 kernel), the gating op, ggml_argsort_top_k (an argsort and a view), the
 * selected weights' get_rows, with norm_w their sum_rows, clamp (ggml-org/llama.cpp#16655, October 2025) and div;
 * MUL_MAT_ID per projection and the GLU as a dense MLP's mat-vecs and GLU; then the routing weights' ggml_mul and
 * n_expert_used - 1 ggml_adds over views of the experts' outputs. Views, reshapes and permutes launch nothing.
 * ggml-cuda's graph fusions (ggml/src/ggml-cuda/ggml-cuda.cu @49bfddeca, all behind GGML_CUDA_DISABLE_FUSION): a chain
 * of up to 8 adds in one kernel (ggml_cuda_op_fused_add, ggml-org/llama.cpp#15631, opened 2025-08-28); the gating op,
 * argsort, get_rows and the norm in one topk_moe kernel (ggml_cuda_topk_moe_fusion, ggml-org/llama.cpp#16130, September 2025), and for
 * a softmax after the top-k (gpt-oss's LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT) only from ggml-org/llama.cpp#16649 (October 2025),
 * which its own master column predates. The router's bias add and the experts' ADD_ID fold into the mat-vecs with the
 * GEMV fusion (ggml-org/llama.cpp#16715), counted apart (gemvFusion, biased linears). The mul and the adds stay two kernels until the
 * weighted reduction of ggml-org/llama.cpp#25952 (July 2026); ggml-org/llama.cpp#16857's expert-reduce kernel was reverted (ggml-org/llama.cpp#17100) eight days after it.
 */
import type { DecodeGraphBuild } from '../../memory/framework-profile.js';

// build_moe_ffn's gating by the config's model_type: gpt-oss takes the softmax over the selected logits
// (LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT, norm_w false, biased router and experts; src/models/openai-moe-iswa.cpp
// @49bfddeca); other types as Qwen3-MoE's softmax before the top-k with norm_w (src/models/qwen3moe.cpp @49bfddeca),
// Mixtral's too (build_llama, norm_w true); other MoE types' gating was not read, assumed alike.
const SOFTMAX_AFTER_TOP_K: ReadonlySet<string> = new Set(['gpt_oss']);

/** The MoE kernels beyond a dense MLP's for a model of this config model_type and top-k in a graph of this build. */
export function ggmlMoeRoutingKernels(
  modelType: string,
  topK: number,
  graph: DecodeGraphBuild,
): number {
  const late = SOFTMAX_AFTER_TOP_K.has(modelType);
  // Apart: argsort, get_rows, then the softmax over the selected (gpt-oss); or softmax, argsort, get_rows, sum_rows,
  // clamp, div (the clamp since ggml-org/llama.cpp#16655, after the builds without the MoE fusions: none at @4227c9be).
  const selectionApart = late ? 3 : graph === 'no-moe-fusion' ? 5 : 6;
  // gpt-oss's router bias add and the 3 experts' ADD_ID: the unfused count has no bias kernels of its own
  // (unfusedDecodeKernels is build_llama's); a fused graph's are the gemvFusion perBiasedLinear kernels.
  const biasesApart = late && graph === 'unfused' ? 4 : 0;
  const adds = topK - 1;
  const router = 1;
  const mul = 1;
  if (graph === 'unfused' || graph === 'no-moe-fusion')
    return router + biasesApart + selectionApart + mul + adds;
  // Fused adds: up to 8 a kernel (ggml_cuda_op_fused_add, n_fuse <= 8 in ggml-cuda.cu @49bfddeca).
  const addKernels = Math.ceil(adds / 8);
  const selection = graph === 'no-gemv-fusion' && late ? selectionApart : 1;
  return router + selection + mul + addKernels;
}
