/**
 * vLLM's fused-MoE workspaces during its start-up profile's forward (max_num_batched_tokens tokens): fused_experts_impl
 * (vllm/model_executor/layers/fused_moe/fused_moe.py of the 0.8.4 wheel, lines 1271-1314) takes
 * M = min(tokens, VLLM_FUSED_MOE_CHUNK_SIZE) and allocates `cache13` of M x top_k x max(N, K) (intermediate_cache1 of
 * N = w13's rows, the gate and up projections of this rank's experts, and intermediate_cache3 of K = hidden share it),
 * `intermediate_cache2` of M x top_k x N / 2 (silu_and_mul's output) and `out_hidden_states` of M x K, all in the
 * activation dtype. Every routed token's copy of the hidden size lives in intermediate_cache3 until moe_sum reduces it.
 */
// VLLM_FUSED_MOE_CHUNK_SIZE default "32768" (vllm/envs.py of the 0.8.4 wheel, line 454).
export const VLLM_FUSED_MOE_CHUNK_TOKENS = 32768;

/** Bytes of one MoE layer's fused_experts workspaces at `tokens` tokens (expert width `ffn` split over `tp`). */
export function vllmFusedMoeWorkspace(w: {
  tokens: number;
  hidden: number;
  ffn: number;
  topK: number;
  tp: number;
  c: number;
}): number {
  const m = Math.min(w.tokens, VLLM_FUSED_MOE_CHUNK_TOKENS);
  const n = (2 * w.ffn) / w.tp; // w13: gate and up, each ffn / tp rows on this rank
  return m * w.c * (w.topK * (Math.max(n, w.hidden) + n / 2) + w.hidden);
}
