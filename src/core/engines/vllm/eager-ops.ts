/**
 * What a vLLM decoder layer issues from Python when it runs outside CUDA graphs (`--enforce-eager`, or a batch above
 * the largest captured). Read in the wheel of https://pypi.org/project/vllm/0.9.1/: with enforce_eager
 * VllmConfig.__post_init__ (vllm/config.py) leaves CompilationConfig.level at 0 (NO_COMPILATION; PIECEWISE is set
 * only `not self.model_config.enforce_eager`), so no torch.compile runs and CustomOp.default_on
 * (vllm/model_executor/custom_op.py) enables every custom op's forward_cuda. A plain layer then issues the 12 ops
 * time/train-work.ts OPS_PER_LAYER_COMPILED counts: two fused_add_rms_norm, four linears each one GEMM op
 * (apply_awq_marlin_linear's gptq_marlin_gemm in marlin_utils.py, or F.linear; its reshapes are views),
 * rotary_embedding, the attention's output `torch.empty`, reshape_and_cache_flash and flash_attn_varlen_func
 * (attention/layer.py, v1/attention/backends/flash_attn.py) and SiluAndMul's `torch.empty` and silu_and_mul
 * (layers/activation.py).
 */

// Qwen3Attention.forward (models/qwen3.py; qwen3_moe.py alike): q_norm and k_norm on views of the split qkv, each
// RMSNorm.forward_cuda without a residual (layers/layernorm.py rms_norm: `torch.empty_like` and torch.ops._C.rms_norm,
// after _custom_ops.py rms_norm's `input.contiguous()`, which copies the view's strided rows above one token and
// returns it as it is at one): 2 ops each at one sequence, 3 above.
const QK_NORM_OPS = { one: 2 * 2, more: 2 * 3 };
const QK_NORM_TYPES: readonly string[] = ['qwen3', 'qwen3_moe'];

// The Python a Llama decoder layer of the vllm 0.15.1 wheel runs eagerly around those ops, timed on a CPU with its
// kernels stubbed (scripts/measure/vllm_eager_layer_host.py, test/fixtures/measure/vllm-eager-layer-host.json: 108-110
// µs a layer at 1, 20 and 100 sequences, its two torch.empty allocations of 1.5 µs each out): the modules' calls,
// CustomOp.forward, the linears' quant_method.apply and dispatch_unquantized_gemm, the attention's views, the CUDA
// platform's two opaque custom ops through the dispatcher (unified_kv_cache_update, unified_attention_with_output) and
// their forward-context lookups, FlashAttentionImpl's unbind, slices and descale expands, the flash-attn wrapper.
// Qwen3's q/k norm modules add 25-30 µs there, which its counted ops (QK_NORM_OPS) more than cover.
export const VLLM_EAGER_LAYER_PYTHON_SECONDS = 105e-6;

/** Ops a vLLM eager decoder layer issues beyond the compiled count (FrameworkProfile.eagerLayerExtraOps). */
export const vllmEagerLayerExtraOps = (type: string, _sliding: boolean, rows: number): number =>
  QK_NORM_TYPES.includes(type) ? (rows > 1 ? QK_NORM_OPS.more : QK_NORM_OPS.one) : 0;
