/**
 * What transformers' eager Llama-family modules move in forward, in 16-bit passes (time/train-work.ts
 * elemBytesPerTokenLayer; memory/framework-profile.ts eagerPasses). Read in transformers v4.36.2
 * src/transformers/models/llama/modeling_llama.py (the same lines in v4.57.1); and the ops of each family's eager
 * decoder layer at a decode token.
 */
import type { SlidingMask } from '../../../schema/time.js';

// LlamaRMSNorm.forward: `.to(torch.float32)` (read 2, write 4 B), `.pow(2)` (read 4, write 4), `.mean(-1)` (read 4),
// `hidden_states * torch.rsqrt(...)` (read 4, write 4), `.to(input_dtype)` (read 4, write 2), `self.weight * ...`
// (read 2, write 2): 36 B per element, 18 passes of 2 B.
// https://github.com/huggingface/transformers/blob/v4.36.2/src/transformers/models/llama/modeling_llama.py
const RMSNORM_PASSES = 18;
// apply_rotary_pos_emb, per q and per k: `q * cos` (read, write: 2 passes), rotate_half's `-x2` over one half (1) and
// torch.cat (2), `* sin` (2), the sum (read 2, write 1: 3): 10 passes (same file).
const ROTARY_PASSES = 10;

// LlamaSdpaAttention.forward: `.contiguous()` on q, k and v only `if query_states.device.type == "cuda" and
// attention_mask is not None` (same file; huggingface/transformers src/transformers/integrations/sdpa_attention.py
// @00c238b never), a read and a write of each. Its `attn_output.transpose(1, 2).contiguous()` copies nothing after a
// fused kernel: PyTorch's flash and memory-efficient SDPA run on token-major (batch, seq, heads, dim) tensors and
// return the output as `.transpose(1,2)` of that buffer, so transposing it back is already contiguous
// (_scaled_dot_product_flash_attention_cuda, _scaled_dot_product_efficient_attention_cuda in pytorch/pytorch
// aten/src/ATen/native/transformers/cuda/attention.cu @e129513).
export const HF_EAGER_PASSES = {
  norm: RMSNORM_PASSES,
  rotary: ROTARY_PASSES,
  sdpaCopiesQkvOnMask: true,
};

// The ops an eager decoder layer of transformers 4.52.4 issues at one decode token beyond a Llama layer's, counted in
// each family's models/<family>/modeling_<family>.py in the wheel of https://pypi.org/project/transformers/4.52.4/:
// every torch call that launches a kernel or allocates a tensor (views, slices and shape reads not counted; a Llama
// layer so counted is 40 ops, 42 where repeat_kv copies GQA's k and v, the 45 of time/train-work.ts
// OPS_PER_LAYER_EAGER within that). Llama, Mistral and Qwen2 run the same layer (Qwen2's q/k/v biases are in their
// linears' addmm): 0.
// LlamaRMSNorm.forward: `.to(float32)`, `.pow(2)`, `.mean`, `+ eps`, `rsqrt`, `*`, `.to(input_dtype)`, `weight *`.
const LLAMA_RMSNORM_OPS = 8;
// Gemma2RMSNorm / Gemma3RMSNorm.forward: `x.float()`, `pow`, `mean`, `+ eps`, `rsqrt`, `*`, `weight.float()`,
// `1.0 + `, `*`, `.type_as(x)` (gemma2/modeling_gemma2.py, gemma3/modeling_gemma3.py).
const GEMMA_RMSNORM_OPS = 10;
// Gemma2DecoderLayer / Gemma3DecoderLayer.forward on a sliding layer with a 4-D mask (SDPA, eager), before transformers
// 4.53 (whose layers take a mask made once a step): 4.52.4 rebuilds it by `torch.ones_like`, `torch.tril`,
// `torch.where`, the offset's `-` and `+ 1`, `torch.clamp`, `torch.arange`, `+= offset` and the mask's index by it;
// 4.50.0 (https://pypi.org/project/transformers/4.50.0/) by the first three, then a slice at a host-side offset.
const GEMMA_SLIDING_MASK_OPS: Readonly<Record<SlidingMask, number>> = { index: 9, slice: 3 };
const HF_EAGER_LAYER_EXTRA: Readonly<Record<string, number>> = {
  // Qwen3Attention / Qwen3MoeAttention.forward: q_norm and k_norm, each LlamaRMSNorm's ops (Qwen3RMSNorm).
  qwen3: 2 * LLAMA_RMSNORM_OPS,
  qwen3_moe: 2 * LLAMA_RMSNORM_OPS,
  // Gemma2DecoderLayer: input, post-attention, pre- and post-feedforward norms, four Gemma norms for Llama's two.
  gemma2: 4 * GEMMA_RMSNORM_OPS - 2 * LLAMA_RMSNORM_OPS,
  // Gemma3DecoderLayer: Gemma 2's four, and Gemma3Attention's q_norm and k_norm.
  gemma3: 6 * GEMMA_RMSNORM_OPS - 2 * LLAMA_RMSNORM_OPS,
  gemma3_text: 6 * GEMMA_RMSNORM_OPS - 2 * LLAMA_RMSNORM_OPS,
  // Phi3Attention's fused qkv_proj (one matmul for three, then slices) and Phi3MLP's gate_up_proj (one for two, then
  // `chunk`): 3 fewer; its apply_rotary_pos_emb (partial rotary) cats each of q and k back to its pass-through part: 2
  // more. Its resid dropouts are no-ops in eval.
  phi3: -3 + 2,
};
const HF_SLIDING_MASK_TYPES: readonly string[] = ['gemma2', 'gemma3', 'gemma3_text'];

/**
 * Ops a transformers eager decoder layer of this model_type issues at a decode token beyond a Llama layer's
 * (FrameworkProfile.eagerLayerExtraOps).
 */
export function hfEagerLayerExtraOps(
  modelType: string,
  sliding: boolean,
  _rows: number,
  mask?: SlidingMask,
): number {
  const rebuilt =
    sliding && mask !== undefined && HF_SLIDING_MASK_TYPES.includes(modelType)
      ? GEMMA_SLIDING_MASK_OPS[mask]
      : 0;
  return (HF_EAGER_LAYER_EXTRA[modelType] ?? 0) + rebuilt;
}
