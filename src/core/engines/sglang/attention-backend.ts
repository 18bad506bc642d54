/**
 * The attention backend SGLang 0.5.6 picks when none is given, and what its prefill (extend) forward does on the host
 * before its first kernel (FrameworkProfile.prefillHostSync).
 */
import { isHopper as hopper, isSm100 as sm100 } from '../../compute-capability.js';

/** SGLang's attention backends on NVIDIA and AMD GPUs (FlashMLA and CUTLASS MLA for MLA models only). */
export const SGLANG_ATTENTION_BACKENDS = [
  'fa3',
  'flashinfer',
  'trtllm_mha',
  'trtllm_mla',
  'triton',
  'aiter',
  'flashmla',
  'cutlass_mla',
] as const;
export type SglangAttentionBackend = (typeof SGLANG_ATTENTION_BACKENDS)[number];

/** A backend name as SGLang's `--attention-backend` takes it, if it is one of these. */
export const sglangBackendNamed = (name: string | undefined): SglangAttentionBackend | undefined =>
  SGLANG_ATTENTION_BACKENDS.find((b) => b === name);

// The architectures FA3 is the default for on Hopper (utils/common.py is_fa3_default_architecture, sglang==0.5.6
// wheel), by the model_type of their configs: Qwen2ForCausalLM, Llama4ForConditionalGeneration, LlamaForCausalLM,
// Olmo2ForCausalLM, Gemma2ForCausalLM, Gemma3ForConditionalGeneration, Qwen3ForCausalLM, Qwen3MoeForCausalLM,
// Glm4MoeForCausalLM, Glm4vMoeForConditionalGeneration, Step3VLForConditionalGeneration.
const FA3_DEFAULT_MODEL_TYPES: readonly string[] = [
  'qwen2',
  'llama4',
  'llama',
  'olmo2',
  'gemma2',
  'gemma3',
  'qwen3',
  'qwen3_moe',
  'glm4_moe',
  'glm4v_moe',
  'step3_vl',
];

/** The model-specific choices of server_args.py `_handle_model_specific_adjustments` (sglang==0.5.6), if any. */
function modelSpecificBackend(modelType: string, cc: number): SglangAttentionBackend | undefined {
  // GptOssForCausalLM: trtllm_mha on SM100, fa3 on SM90, triton otherwise. The handler leaves --kv-cache-dtype
  // alone: FA3 and TRT-LLM MHA store an FP8 cache (the MHA table of
  // https://docs.sglang.io/advanced_features/attention_backend.html), Triton reads one with its k/v descales beside
  // the sinks (TritonAttnBackend.forward_decode and forward_extend, python/sglang/srt/layers/attention/
  // triton_backend.py @00858422264b0552a4c0a21a9949c3986d0dec97, though that table marks Triton's FP8 cache absent),
  // and gpt_oss.py writes an FP8 cache unfused since sgl-project/sglang#9783 (its fused set_kv_buffer is bf16-only).
  if (modelType === 'gpt_oss') return sm100(cc) ? 'trtllm_mha' : hopper(cc) ? 'fa3' : 'triton';
  // Llama4: fa3, aiter, triton or trtllm_mha, never FlashInfer (its assert lists the backends it takes).
  if (modelType === 'llama4') return sm100(cc) ? 'trtllm_mha' : hopper(cc) ? 'fa3' : 'triton';
  // Olmo2ForCausalLM: trtllm_mha on SM100, fa3 from SM80.
  if (modelType === 'olmo2') return sm100(cc) ? 'trtllm_mha' : cc >= 8 ? 'fa3' : 'triton';
  // DeepseekV3ForCausalLM (DeepSeek-V3/R1's deepseek_v3 configs and Kimi K2's kimi_k2) on SM100: trtllm_mla;
  // Qwen3NextForCausalLM on SM100: triton.
  if ((modelType === 'deepseek_v3' || modelType === 'kimi_k2') && sm100(cc)) return 'trtllm_mla';
  if (modelType === 'qwen3_next' && sm100(cc)) return 'triton';
  return undefined;
}

/**
 * The backend SGLang 0.5.6 serves a model with by default (server_args.py `_handle_model_specific_adjustments`, then
 * `_handle_attention_backend_compatibility`: MHA/GQA models take FA3 on Hopper for the architectures listed above,
 * FlashInfer elsewhere on NVIDIA; MLA models FA3 on Hopper, FlashInfer on SM100, Triton otherwise; aiter on ROCm,
 * where `cc` is 0). FlashInfer is a pinned dependency of the wheel, so it is always installed.
 */
export function sglangAttentionBackend(
  modelType: string,
  mla: boolean,
  cc: number,
): SglangAttentionBackend {
  if (cc === 0) return 'aiter';
  const specific = modelSpecificBackend(modelType, cc);
  if (specific !== undefined) return specific;
  if (mla) return hopper(cc) ? 'fa3' : sm100(cc) ? 'flashinfer' : 'triton';
  return hopper(cc) && FA3_DEFAULT_MODEL_TYPES.includes(modelType) ? 'fa3' : 'flashinfer';
}

/**
 * Whether a prefill forward reads a device value on the host before it launches its first kernel. SGLang's FlashInfer
 * backend does: `init_forward_metadata` runs at the start of every extend forward (model_executor/model_runner.py
 * `forward_extend`), and for an extend its prefill updater sums the prompts' cached prefix lengths with
 * `prefix_lens.sum().item()` ("TODO: remove this device sync", layers/attention/flashinfer_backend.py
 * `FlashInferIndicesUpdaterPrefill.update_single_wrapper`; `update_sliding_window` likewise), then plans its ragged
 * prefill from `qo_indptr.to("cpu")` (flashinfer==0.5.3 `BatchPrefillWithRaggedKVCacheWrapper.plan`), both sglang==0.5.6
 * wheel. The FA3 backend reads the lengths from the batch's CPU copies (`seq_lens_cpu`, flashattention_backend.py), the
 * Triton and TensorRT-LLM backends read none back, and SGLang's ROCm backends were not read.
 */
export const sglangPrefillHostSync = (modelType: string, mla: boolean, cc: number): boolean =>
  sglangAttentionBackend(modelType, mla, cc) === 'flashinfer';
