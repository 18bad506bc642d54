/**
 * Kernels SGLang's CUDA-graph decode step launches for DeepSeek-V3/R1's parts beyond the counted chain
 * (FrameworkProfile.decodeFeatureKernels; time/decode-host.ts), counted in the sglang==0.5.6.post1 wheel
 * (https://pypi.org/project/sglang/0.5.6.post1/) for the path it takes on SM100 (compute capability 10.x): the
 * trtllm_mla attention backend and, for DeepSeek's block-FP8 checkpoint, the flashinfer_trtllm MoE runner with the
 * shared expert kept out of the routed MoE (server_args.py `_handle_model_specific_adjustments`; block-fp8.ts here).
 * Elsewhere (Hopper's FA3 MLA and Triton MoE with the shared expert fused in, ROCm) the kernels were not counted.
 *
 * - MLA (models/deepseek_v2.py `forward_absorb_prepare`, `forward_absorb_core`; layers/attention/trtllm_mla_backend.py
 *   `forward_decode`, BF16 KV cache): beyond a plain layer's qkv and o GEMMs, norms, rotary, KV store and attention
 *   kernel, the q_a_layernorm (kv_a_layernorm runs beside it on the alternate stream under graph capture), the q_b_proj
 *   GEMM, the absorbed W_UK bmm (kv_b_proj is dequantized to BF16 at load for 128x128 blocks, `post_load_weights`
 *   `block_quant_dequant`), `concat_mla_absorb_q` of the query halves, and the W_UV bmm written into o_proj's input
 *   (`torch.bmm(..., out=)`, no copy): 5.
 * - A shared expert (DeepseekV2MoE `forward_normal_dual_stream`, taken under graph capture when it is not fused): its
 *   gate_up GEMM, activation and down GEMM run on the step's stream while the router and routed experts run on the
 *   alternate one, so only the add of its output after the join lands on the critical path: 1, its linears'
 *   activation quantization left out (`sharedExpertBeside`).
 * - The router's score correction bias and grouped top-k: computed inside FlashInfer's trtllm_fp8_block_scale_moe
 *   (the top-k is bypassed, layers/quantization/fp8.py `apply_with_router_logits`), where the counted chain already
 *   has a top-k kernel: 0.
 * - A block-FP8 linear (layers/quantization/fp8_utils.py `_dispatch_auto_backend`: DeepGEMM first while JIT DeepGEMM
 *   is on): the activation's per-token-group quantization before the GEMM, no row pad: 1.
 * - The block-FP8 experts (`apply_with_router_logits`): `per_token_group_quant_fp8` of the hidden states, the
 *   transposed copy of their scales (`a_sf.t().contiguous()`) and the correction bias's cast to BF16 (a float32
 *   parameter, MoEGate): 3. Above 16 tokens the router's BF16 logits are cast to float32 too (MoEGate takes
 *   `dsv3_router_gemm` with float32 output only up to 16): not counted.
 */
import type { DecodeFeatureKernels } from '../../memory/decode-feature-kernels.js';
import { sglangAttentionBackend } from './attention-backend.js';

export const SGLANG_SM100_DEEPSEEK_KERNELS: DecodeFeatureKernels = {
  mlaLayer: 5, // deepseek_v2.py forward_absorb_*, trtllm_mla_backend.py forward_decode (sglang==0.5.6.post1)
  sharedExpert: 1, // forward_normal_dual_stream: the add after the streams join
  sharedExpertBeside: true, // forward_normal_dual_stream: the shared expert on the step's stream, beside the MoE
  biasedRouter: { modelTypes: [], kernels: 0 }, // routing inside trtllm_fp8_block_scale_moe
  blockFp8Linear: 1, // per-token-group quantization before DeepGEMM (fp8_utils.py)
  blockFp8PadSm90: 0, // DeepGEMM takes any M (no row pad)
  blockFp8Moe: 3, // fp8.py apply_with_router_logits: quantize, scale transpose, bias cast
};

/** SGLang's count where it was read: the DeepSeek-V3 family on the trtllm_mla backend it picks on SM100. */
export const sglangDecodeFeatureKernels = (
  modelType: string,
  cc: number,
): DecodeFeatureKernels | undefined =>
  sglangAttentionBackend(modelType, true, cc) === 'trtllm_mla'
    ? SGLANG_SM100_DEEPSEEK_KERNELS
    : undefined;
