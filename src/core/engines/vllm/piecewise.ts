/**
 * vLLM V1's piecewise CUDA graphs (its default until vllm PR #25444, 2025-09-23, made decode steps replay one full
 * graph, FULL_AND_PIECEWISE): torch.compile splits each layer's graph at the attention op
 * (CompilationConfig.splitting_ops, vllm.unified_attention_with_output), captures the pieces between, and runs the
 * attention op eagerly from Python (https://github.com/vllm-project/vllm/pull/14437, docs/design/v1/torch_compile.md:
 * "we only capture the cudagraph for the piece of graph between attention operations"). The host issues each
 * layer's attention calls while the GPU runs the pieces; a step takes the longer of the two. vLLM's backends say so
 * themselves: "With piece-wise CUDA graphs, this method is executed in eager-mode PyTorch ... `view` and `slice` (or
 * `[:n]`) operations are surprisingly slow even in the case they do not invoke any GPU ops" (the note atop
 * TritonAttentionImpl.forward and FlashAttentionImpl.forward, vllm/v1/attention/backends/). Counted from the decode
 * path of the attention backends at vllm-project/vllm v0.10.0, views and slices included (time/piecewise.ts prices
 * each call at EAGER_OP_SECONDS).
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

export const VLLM_PIECEWISE_ATTENTION_CALLS: NonNullable<
  FrameworkProfile['piecewiseAttentionCalls']
> = {
  // FlashAttentionImpl.forward (vllm/v1/attention/backends/flash_attn.py): kv_cache.unbind, reshape_and_cache_flash,
  // the query and output slices to the scheduled tokens, the three descale expands, flash_attn_varlen_func.
  kv: 8,
  // MLACommonImpl.forward (vllm/v1/attention/backends/mla/common.py): the output, q, k_c_normed and k_pe slices to
  // the scheduled tokens (4), q.view, the decode/prefill slices of q, k_pe and k_c_normed (4), k_pe.squeeze and
  // slot_mapping.flatten (2), concat_and_cache_mla, then for the decode tokens split, transpose, bmm by W_UK_T,
  // transpose; FlashMLAImpl._forward_decode (mla/flashmla.py): cat, unsqueeze of q and of the cache,
  // flash_mla_with_kvcache; _v_up_proj: view, transpose, bmm by W_UV, transpose, reshape; the slice and copy into
  // the output (2): 27.
  mla: 27,
};
