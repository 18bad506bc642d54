/**
 * Unsloth's own decode step in generate for the Llama-family models, counted from its source at
 * unslothai/unsloth@3869fbe1 (2026-04-15; unchanged at ad6bd780, which sets 2026.4.8). FastLlamaModel (Llama;
 * FastMistralModel and FastQwen2Model on the same layer: unsloth/models/loader.py lines 579-634, mistral.py
 * MistralForCausalLM_fast_forward, qwen2.py) replaces the model's `generate` with `unsloth_fast_generate`
 * (models/llama.py line 2735), and TRL's GRPO rollout without vLLM calls it inside
 * `unsloth_unwrap_model_for_generation` (models/rl.py lines 187-210, `FastLanguageModel.for_inference`).
 * `CausalLM_fast_forward` sends every step with a KV cache to `LlamaModel_fast_forward_inference` (llama.py lines
 * 1305-1428), whose layer issues, at one token a row and more than one row (the kernel-launching ops, as
 * scripts/measure/generate_layer_host.py counts them; views and allocations left out):
 *   two residual copies and two residual adds: 4;
 *   fast_rms_layernorm_inference twice, into preallocated fp32 buffers (copy_, square, mean, += eps, rsqrt_, *=,
 *   copy_, *= weight): 16;
 *   LlamaAttention_fast_forward_inference (lines 383-611): the q/k/v/o matmuls 4, cos and sin gathered at the
 *   positions 2 (the cache already in the model's dtype), the rotary half-swap on Q and on K (two copies, neg_,
 *   *= cos, addcmul_) 10, the K and V writes into the preallocated cache 2, scaled_dot_product_attention with
 *   enable_gqa 1, the transposed output's reshape 1: 20;
 *   fast_swiglu_inference (lines 616-645): gate, up and down matmuls, silu_ and *= up: 5.
 * One row runs its attention as Q *= scale, two matmuls, a softmax and its copy, and copies K and V out to the query
 * heads, in place of the SDPA call and the output's reshape (5 more). Checked on CPU tensors by
 * scripts/measure/unsloth_fast_decode_ops.py (calibration/measured/unsloth-fast-decode-ops-cpu.json: 45 at 4 rows,
 * 50 at one, once CPU SDPA's math decomposition is read as the one kernel it is on a GPU).
 */
import type { GenerateDecodeProfile } from '../../memory/eager-layer-profile.js';

export const UNSLOTH_GENERATE_DECODE: GenerateDecodeProfile = {
  modelTypes: ['llama', 'mistral', 'qwen2'],
  layerOps: 45,
  // fast_linear_forward (unsloth/kernels/utils.py lines 984-1024): `out += bias`.
  biasOps: 1,
  // The same: the adapter's factors cast once and kept (`lora_A._fast_lora`), then `torch_mm(X, A.t())` and
  // `out.addmm_(XA, B.t(), alpha = s)`, no PEFT module call.
  adapterOps: 2,
  // fast_dequantize (kernels/utils.py, the CUDA build) calls bitsandbytes' C functions through ctypes:
  // cdequantize_blockwise_fp32 on the double-quantized absmax, `out_absmax += offset`, then the nf4 kernel; the
  // one-row fast_gemv the same absmax kernels and the 4-bit GEMV.
  bnb4Ops: 3,
};
