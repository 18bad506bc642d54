/**
 * What transformers' eager Llama-family modules move in forward, in 16-bit passes (time/train-work.ts
 * elemBytesPerTokenLayer; memory/framework-profile.ts eagerPasses). Read in transformers v4.36.2
 * src/transformers/models/llama/modeling_llama.py (the same lines in v4.57.1).
 */

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
