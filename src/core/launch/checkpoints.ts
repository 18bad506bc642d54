/**
 * Which checkpoint a serving plan loads: a published repository in the plan's weight format when one is known
 * (by the base model's Hugging Face id), else the base repository with the quantize step that makes one.
 */
import type { WeightDtype } from '../../schema/estimate.js';

export interface Checkpoint {
  /** What MODEL points at: a repository id or a local path (GGUF: a repository of GGUF files or a .gguf file). */
  ref: string;
  /** Published: the repository exists in this format; otherwise `steps` make it from the base repository. */
  published: boolean;
  steps: string[];
  /** The user's own checkpoint (`job.haveCheckpoints`): `ref` is a placeholder the README has them set. */
  own?: boolean;
}

// Published quantized checkpoints, each from its Hugging Face model page.
const PUBLISHED: Readonly<Record<string, Partial<Record<WeightDtype, string>>>> = {
  'meta-llama/Llama-3.1-8B': {
    int4: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4', // huggingface.co/hugging-quants
    fp8: 'RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8', // huggingface.co/RedHatAI (llm-compressor W8A8 FP8)
    nvfp4: 'nvidia/Llama-3.1-8B-Instruct-FP4', // huggingface.co/nvidia (ModelOpt NVFP4; vLLM, SGLang; Blackwell)
    q4_k_m: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
    q5_k_m: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
    q6_k: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
    q8_0: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
  },
  'meta-llama/Llama-3.1-70B': {
    int4: 'hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4',
    fp8: 'RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8',
    q4_k_m: 'bartowski/Meta-Llama-3.1-70B-Instruct-GGUF',
  },
  'meta-llama/Llama-3.1-405B': {
    int4: 'hugging-quants/Meta-Llama-3.1-405B-Instruct-AWQ-INT4',
    fp8: 'meta-llama/Llama-3.1-405B-Instruct-FP8', // Meta's own FP8 release
    nvfp4: 'nvidia/Llama-3.1-405B-Instruct-FP4', // huggingface.co/nvidia (ModelOpt NVFP4, Blackwell)
  },
  'openai/gpt-oss-20b': { mxfp4: 'openai/gpt-oss-20b' }, // ships MXFP4 MoE weights
  // AWQ 4-bit repackage of the Instruct model (huggingface.co/casperhansen/llama-3.3-70b-instruct-awq).
  'meta-llama/Llama-3.3-70B-Instruct': { int4: 'casperhansen/llama-3.3-70b-instruct-awq' },
  // Qwen's own AWQ releases of the Instruct models (huggingface.co/Qwen, "Qwen2.5" collection).
  'Qwen/Qwen2.5-0.5B': { int4: 'Qwen/Qwen2.5-0.5B-Instruct-AWQ' },
  'Qwen/Qwen2.5-1.5B': { int4: 'Qwen/Qwen2.5-1.5B-Instruct-AWQ' },
  'Qwen/Qwen2.5-3B': { int4: 'Qwen/Qwen2.5-3B-Instruct-AWQ' },
  'Qwen/Qwen2.5-7B': { int4: 'Qwen/Qwen2.5-7B-Instruct-AWQ' },
  'Qwen/Qwen2.5-14B': { int4: 'Qwen/Qwen2.5-14B-Instruct-AWQ' },
  'Qwen/Qwen2.5-32B': { int4: 'Qwen/Qwen2.5-32B-Instruct-AWQ' },
  'Qwen/Qwen2.5-72B': { int4: 'Qwen/Qwen2.5-72B-Instruct-AWQ' },
  // Qwen's own AWQ release of the 7B vision-language model (huggingface.co/Qwen, "Qwen2-VL" collection: AWQ and
  // GPTQ Int4/Int8 of the 2B, 7B and 72B Instruct models).
  'Qwen/Qwen2-VL-7B-Instruct': { int4: 'Qwen/Qwen2-VL-7B-Instruct-AWQ' },
  // Qwen3: Qwen's own AWQ (dense) and GPTQ-Int4 (MoE) releases (huggingface.co/Qwen, "Qwen3" collection), and
  // RedHatAI's FP8-dynamic ones (huggingface.co/RedHatAI: llm-compressor FP8_DYNAMIC, one scale per output row,
  // per-token activation scales: the fp8 the plan prices). Qwen's own "-FP8" repositories are block-128 FP8,
  // other kernels.
  'Qwen/Qwen3-0.6B': { fp8: 'RedHatAI/Qwen3-0.6B-FP8-dynamic' },
  'Qwen/Qwen3-1.7B': { fp8: 'RedHatAI/Qwen3-1.7B-FP8-dynamic' },
  'Qwen/Qwen3-4B': { int4: 'Qwen/Qwen3-4B-AWQ', fp8: 'RedHatAI/Qwen3-4B-FP8-dynamic' },
  'Qwen/Qwen3-8B': { int4: 'Qwen/Qwen3-8B-AWQ', fp8: 'RedHatAI/Qwen3-8B-FP8-dynamic' },
  // GGUF: bartowski's llama.cpp quants of Qwen3-14B (huggingface.co/bartowski/Qwen_Qwen3-14B-GGUF: Q4_K_M 9.00 GB,
  // Q5_K_M 10.51 GB, Q6_K 12.12 GB, Q8_0 15.70 GB; `-hf repo:QUANT` picks the file).
  'Qwen/Qwen3-14B': {
    int4: 'Qwen/Qwen3-14B-AWQ',
    fp8: 'RedHatAI/Qwen3-14B-FP8-dynamic',
    q4_k_m: 'bartowski/Qwen_Qwen3-14B-GGUF',
    q5_k_m: 'bartowski/Qwen_Qwen3-14B-GGUF',
    q6_k: 'bartowski/Qwen_Qwen3-14B-GGUF',
    q8_0: 'bartowski/Qwen_Qwen3-14B-GGUF',
  },
  'Qwen/Qwen3-32B': { int4: 'Qwen/Qwen3-32B-AWQ', fp8: 'RedHatAI/Qwen3-32B-FP8-dynamic' },
  'Qwen/Qwen3-30B-A3B': {
    int4: 'Qwen/Qwen3-30B-A3B-GPTQ-Int4',
    fp8: 'RedHatAI/Qwen3-30B-A3B-FP8-dynamic',
  },
  'Qwen/Qwen3-235B-A22B': {
    int4: 'Qwen/Qwen3-235B-A22B-GPTQ-Int4',
    fp8: 'RedHatAI/Qwen3-235B-A22B-FP8-dynamic',
  },
};

export const GGUF_TYPE: Partial<Record<WeightDtype, string>> = {
  q4_0: 'Q4_0',
  q4_k_m: 'Q4_K_M',
  q5_k_m: 'Q5_K_M',
  q6_k: 'Q6_K',
  q8_0: 'Q8_0',
};

/**
 * The checkpoint for `weights` of the model `hfId` (or `fallback`, the plan's model reference). `shipped` is the
 * format the model's own repository ships in (config.json quantization_config, core/model/native-weights.ts):
 * a plan in that format loads the repository as it is (DeepSeek-V3's block FP8), with nothing to make.
 */
export function checkpointFor(
  hfId: string | null,
  fallback: string,
  weights: WeightDtype,
  shipped: WeightDtype | null = null,
): Checkpoint {
  if (shipped === weights) return { ref: hfId ?? fallback, published: true, steps: [] };
  const known = hfId ? PUBLISHED[hfId]?.[weights] : undefined;
  if (known) return { ref: known, published: true, steps: [] };
  const gguf = GGUF_TYPE[weights];
  if (gguf) {
    // llama.cpp convert_hf_to_gguf.py then llama-quantize (tools/quantize/README.md).
    const file = `model-${gguf}.gguf`;
    return {
      ref: file,
      published: false,
      steps: [
        `huggingface-cli download ${fallback} --local-dir base`,
        'python convert_hf_to_gguf.py base --outfile model-f16.gguf --outtype f16',
        `llama-quantize model-f16.gguf ${file} ${gguf}`,
      ],
    };
  }
  // fp8 from a 16-bit checkpoint: the serving engines quantize it while loading (`--quantization fp8`,
  // https://docs.vllm.ai/en/latest/features/quantization/fp8.html; sglang launch.ts passes the same flag), so
  // MODEL is the base repository. An llm-compressor copy would carry quant_method compressed-tensors, which
  // that flag refuses ("Quantization method specified in the model config (compressed-tensors) does not match
  // ... (fp8)", ModelConfig._verify_quantization, sglang 0.5.23 python/sglang/srt/configs/model_config.py).
  if (weights === 'fp8' && shipped === null)
    return { ref: hfId ?? fallback, published: false, steps: [] };
  switch (weights) {
    case 'int4':
    case 'fp8':
    case 'int8':
    case 'nvfp4': {
      // llm-compressor oneshot recipes: AWQ W4A16, FP8_DYNAMIC, W8A8, NVFP4 (github.com/vllm-project/llm-compressor examples).
      const scheme = {
        int4: 'W4A16 (AWQModifier)',
        fp8: 'FP8_DYNAMIC',
        int8: 'W8A8',
        nvfp4: 'NVFP4',
      }[weights];
      return {
        ref: `./${fallback.split('/').pop() ?? 'model'}-${weights}`,
        published: false,
        steps: [
          `pip install llmcompressor; quantize ${fallback} with llm-compressor oneshot, scheme ${scheme}, saving to the folder MODEL names`,
        ],
      };
    }
    default:
      return { ref: fallback, published: false, steps: [] };
  }
}

/** The base model and (first) weight format of a published checkpoint (`--from` reads serve.sh back), or null. */
export function publishedBase(ref: string): { hfId: string; weights: WeightDtype } | null {
  for (const [hfId, byWeights] of Object.entries(PUBLISHED))
    for (const [weights, published] of Object.entries(byWeights))
      if (published === ref) return { hfId, weights: weights as WeightDtype };
  return null;
}
