/** The GPUs the Hugging Face training engines run gpt-oss's flash attention on (engines/kernels.ts flashRefusal). */
import type { FlashOnly } from '../def.js';

/**
 * transformers 5.14.1 GptOssPreTrainedModel._compatible_flash_implementations = ["kernels-community/vllm-flash-attn3",
 * "flash_attention_4"], and PreTrainedModel._check_and_adjust_attn_implementation swaps any other flash request (the
 * launcher's kernels-community/flash-attn2) for the first of them. That hub kernel (attention sinks: s_aux) checks
 * `params.arch == 90`, "S aux is currently only supported for Hopper GPUs" (kernels-community vllm-flash-attn3
 * flash-attn/flash_api.cpp mha_fwd; build.toml builds it for 8.0 and 9.0a, CUDA only), so gpt-oss trains with flash
 * attention on compute capability 9.0 alone; elsewhere eager attention (sdpa is refused: rule transformers-no-sdpa).
 */
export const HF_FLASH_ONLY: FlashOnly = {
  modelTypes: ['gpt_oss'],
  cc: [9],
  why: 'transformers 5.14.1 swaps flash attention of gpt-oss for the kernels hub\'s kernels-community/vllm-flash-attn3, whose attention sinks run on Hopper (9.0) only: "S aux is currently only supported for Hopper GPUs"; plan eager attention',
  source:
    'https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/models/gpt_oss/modeling_gpt_oss.py, https://github.com/huggingface/kernels-community/blob/0774fcceb4b94665ca465e915d574dcfbf01ec67/vllm-flash-attn3/flash-attn/flash_api.cpp',
};
