/**
 * The attention backend SGLang decodes an MLA model (DeepSeek-V2/V3, Kimi K2) with, by release and GPU, and which
 * releases run its Triton MLA decode as two passes over the cache. A run that names `--attention-backend` takes that
 * backend (EngineBuild.attentionBackend); otherwise the release's default, read in each release's own wheel:
 *
 * | releases | NVIDIA Hopper | SM100 | other NVIDIA | ROCm | source |
 * | --- | --- | --- | --- | --- | --- |
 * | 0.2.x to 0.4.5 | triton | triton | triton | triton | ModelRunner: "using MLA Triton implementaion, flashinfer is disabled" (sglang==0.3.0); "MLA optimization is turned on. Use triton backend." (sglang==0.4.0.post1, 0.4.1; 0.4.3 takes flashinfer only with --enable-flashinfer-mla; sglang==0.4.5 sets triton) |
 * | 0.4.5.post1 to 0.4.6 | fa3 | triton | triton | triton | ModelRunner: an MLA model takes fa3 where `is_hopper_with_cuda_12_3()`, else triton (sglang==0.4.5.post1; `model_specific_adjustment` in sglang==0.4.6.post2) |
 * | 0.4.7 to 0.5.3 | fa3 | flashinfer | triton | aiter | ModelRunner: fa3, then flashinfer where `is_sm100_supported()`, aiter on HIP at 16 or 128 KV heads a rank (sglang==0.4.7, 0.4.9, 0.5.0rc0, 0.5.2, 0.5.3) |
 * | 0.5.4 on | fa3 | trtllm_mla for DeepSeek-V3/Kimi K2, else flashinfer | triton | aiter | server_args.py `_handle_model_specific_adjustments` sets trtllm_mla for DeepseekV3ForCausalLM on SM100 (sglang==0.5.4); 0.5.6's choice (attention-backend.ts) |
 *
 * The Triton MLA decode of 0.2.x to 0.4.0.post1 is two kernels a layer: `_fwd_grouped_kernel_stage1` writes q.K for
 * every (local head, cached token) into fp16 logits, then `_fwd_grouped_kernel_stage2` walks each sequence again,
 * reading those logits and the latent's first kv_lora_rank columns (`get_value_buffer`: `kv_buffer[..., :kv_lora_rank]`)
 * (python/sglang/srt/layers/decode_attention.py of sglang==0.3.0, layers/attention/triton_ops/decode_attention.py of
 * sglang==0.4.0.post1). sglang==0.4.0.post2 replaced it with a split-KV kernel that reads each cached row once and
 * reduces the splits' partial outputs (sgl-project/sglang#2394, "adapted the flash decoding implementation from
 * lightllm"; its `num_kv_splits`). Release numbers here carry no .post part (compare-releases.ts), so 0.4.0.post1 reads
 * as split-KV; no row names it.
 */
import { isHopper as hopper, isSm100 as sm100 } from '../../compute-capability.js';
import {
  releaseAtLeast,
  releaseNamedBefore,
  releaseWithin,
  releaseNamedBeforePost,
} from '../../compare-releases.js';
import type { EngineBuild } from '../../memory/decode-feature-kernels.js';
import {
  sglangAttentionBackend,
  sglangBackendNamed,
  type SglangAttentionBackend,
} from './attention-backend.js';

/** One span of releases and the MLA backend its ModelRunner picks, where it is not the newest rule's. */
interface MlaReleaseRule {
  /** The first release that no longer picks this way. */
  before: string;
  hopper: SglangAttentionBackend;
  sm100: SglangAttentionBackend;
  otherNvidia: SglangAttentionBackend;
  rocm: SglangAttentionBackend;
}

export const SGLANG_MLA_DECODE_RELEASES: readonly MlaReleaseRule[] = [
  // https://pypi.org/project/sglang/0.4.5/ model_runner.py: `server_args.attention_backend = "triton"` for MLA
  {
    before: '0.4.5.post1',
    hopper: 'triton',
    sm100: 'triton',
    otherNvidia: 'triton',
    rocm: 'triton',
  },
  // https://pypi.org/project/sglang/0.4.5.post1/ and 0.4.6.post2 model_runner.py: fa3 where is_hopper_with_cuda_12_3()
  { before: '0.4.7', hopper: 'fa3', sm100: 'triton', otherNvidia: 'triton', rocm: 'triton' },
  // https://pypi.org/project/sglang/0.5.3/ model_runner.py: fa3, flashinfer where is_sm100_supported(), aiter on HIP
  { before: '0.5.4', hopper: 'fa3', sm100: 'flashinfer', otherNvidia: 'triton', rocm: 'aiter' },
];

/** The first release whose Triton MLA decode reads each cached row once (sgl-project/sglang#2394, split-KV). */
export const SGLANG_TRITON_MLA_SPLIT_KV_SINCE = '0.4.0'; // https://pypi.org/project/sglang/0.4.0.post2/ decode_attention.py num_kv_splits

/** The attention backend SGLang decodes an MLA model of `modelType` with on GPU `cc` (0: ROCm) in `build`. */
export function sglangMlaDecodeBackend(
  modelType: string,
  cc: number,
  build?: EngineBuild,
): SglangAttentionBackend {
  const named = sglangBackendNamed(build?.attentionBackend);
  if (named !== undefined) return named;
  const v = build?.version;
  const rule =
    v === undefined
      ? undefined
      : SGLANG_MLA_DECODE_RELEASES.find((r) => releaseNamedBeforePost(v, r.before));
  if (rule === undefined) return sglangAttentionBackend(modelType, true, cc);
  if (cc === 0) return rule.rocm;
  return hopper(cc) ? rule.hopper : sm100(cc) ? rule.sm100 : rule.otherNvidia;
}

/** Whether the build decodes MLA layers with the two-pass Triton kernel (DecodeFeatureKernels.mlaTwoPass). */
export function sglangMlaTwoPass(modelType: string, cc: number, build?: EngineBuild): boolean {
  const v = build?.version;
  return (
    v !== undefined &&
    releaseNamedBefore(v, SGLANG_TRITON_MLA_SPLIT_KV_SINCE) &&
    sglangMlaDecodeBackend(modelType, cc, build) === 'triton'
  );
}

/**
 * The releases whose Triton MLA decode layer was counted (decode-kernels.ts): on CUDA (SM100) in sglang==0.4.6.post2,
 * on ROCm (gfx942) in sglang==0.4.3.
 */
export const SGLANG_TRITON_MLA_COUNTED = {
  cuda: { from: '0.4.6', before: '0.4.7' }, // https://pypi.org/project/sglang/0.4.6.post2/
  rocm: { from: '0.4.3', before: '0.4.4' }, // https://pypi.org/project/sglang/0.4.3/
};

/** Whether the build is a release its Triton MLA decode layer was counted in on CUDA or ROCm (SGLANG_TRITON_MLA_COUNTED). */
export function sglangTritonMlaCounted(build: EngineBuild | undefined, rocm: boolean): boolean {
  const v = build?.version;
  const span = rocm ? SGLANG_TRITON_MLA_COUNTED.rocm : SGLANG_TRITON_MLA_COUNTED.cuda;
  return v !== undefined && releaseWithin(v, span);
}

/**
 * The releases whose Triton MLA decode layer on Hopper was counted (decode-kernels.ts
 * SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS): from sglang==0.4.1, the first wheel that loads DeepSeek-V3's block-FP8
 * kv_b_proj requantized per tensor (`block_quant_to_tensor_quant`) and quantizes each absorbed bmm's input with
 * fp8_utils.py `input_to_float8`, read in the 0.4.1, 0.4.2, 0.4.3, 0.4.4, 0.4.4.post1, 0.4.4.post3 and 0.4.5 wheels;
 * sglang==0.4.5.post1 replaced it with `per_tensor_quant_mla_fp8` and took fa3 on Hopper (the table above).
 * `ropeFused`: the one release in that span whose DeepseekScalingRotaryEmbedding.forward dispatches to the fused
 * `forward_cuda` (sglang==0.4.4.post3, layers/rotary_embedding.py); 0.4.1 (vLLM's class), 0.4.2-0.4.4.post2 and 0.4.5
 * run its torch `forward` (the cos/sin gather, two `repeat_interleave`, and for q and k `_rotate_gptj`'s negation and
 * stack, two products and their sum).
 */
export const SGLANG_HOPPER_TRITON_MLA_COUNTED = {
  from: '0.4.1', // https://pypi.org/project/sglang/0.4.1/ deepseek_v2.py forward_absorb: input_to_float8, bmm_fp8
  before: '0.4.5.post1', // https://pypi.org/project/sglang/0.4.5.post1/ deepseek_v2.py: per_tensor_quant_mla_fp8
  ropeFused: { from: '0.4.4.post3', before: '0.4.5' }, // https://pypi.org/project/sglang/0.4.4.post3/ forward_cuda
};

/** Whether the build is a release whose Hopper Triton MLA decode layer was counted (SGLANG_HOPPER_TRITON_MLA_COUNTED). */
export function sglangHopperTritonMlaCounted(build: EngineBuild | undefined): boolean {
  const v = build?.version;
  const span = SGLANG_HOPPER_TRITON_MLA_COUNTED;
  return v !== undefined && releaseAtLeast(v, span.from) && releaseNamedBeforePost(v, span.before);
}

/** Whether that release ran DeepSeek's YaRN rotary as one fused kernel (SGLANG_HOPPER_TRITON_MLA_COUNTED.ropeFused). */
export function sglangHopperRopeFused(build: EngineBuild | undefined): boolean {
  const v = build?.version;
  const span = SGLANG_HOPPER_TRITON_MLA_COUNTED.ropeFused;
  return (
    v !== undefined &&
    !releaseNamedBeforePost(v, span.from) &&
    releaseNamedBeforePost(v, span.before)
  );
}
