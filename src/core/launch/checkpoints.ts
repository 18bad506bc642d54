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
  // Qwen3: Qwen's own AWQ (dense) and GPTQ-Int4 (MoE) releases (huggingface.co/Qwen, "Qwen3" collection), and
  // RedHatAI's FP8-dynamic ones (huggingface.co/RedHatAI: llm-compressor FP8_DYNAMIC, one scale per output row,
  // per-token activation scales: the fp8 the plan prices). Qwen's own "-FP8" repositories are block-128 FP8,
  // other kernels.
  'Qwen/Qwen3-0.6B': { fp8: 'RedHatAI/Qwen3-0.6B-FP8-dynamic' },
  'Qwen/Qwen3-1.7B': { fp8: 'RedHatAI/Qwen3-1.7B-FP8-dynamic' },
  'Qwen/Qwen3-4B': { int4: 'Qwen/Qwen3-4B-AWQ', fp8: 'RedHatAI/Qwen3-4B-FP8-dynamic' },
  'Qwen/Qwen3-8B': { int4: 'Qwen/Qwen3-8B-AWQ', fp8: 'RedHatAI/Qwen3-8B-FP8-dynamic' },
  'Qwen/Qwen3-14B': { int4: 'Qwen/Qwen3-14B-AWQ', fp8: 'RedHatAI/Qwen3-14B-FP8-dynamic' },
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

/**
 * A published repository whose config.json declares fewer positions than the base model the plan counts, and the
 * YaRN scaling its model card gives past them: `original` positions stretched up to `maxFactor` times.
 */
interface ShortConfig {
  declared: number;
  yarn: { original: number; maxFactor: number; ropeTheta: number };
}

// Qwen2.5-7B/14B/32B/72B-Instruct(-AWQ) cards, "Processing Long Texts": "The current config.json is set for context
// length up to 32,768 tokens", YaRN factor 4.0 from original_max_position_embeddings 32768 past it (131,072 in
// all); rope_theta 1000000 in each config.json (huggingface.co/Qwen/Qwen2.5-72B-Instruct-AWQ). The base models'
// configs declare 131072 positions, which is what the plan was checked against.
const QWEN25_INSTRUCT: ShortConfig = {
  declared: 32768,
  yarn: { original: 32768, maxFactor: 4, ropeTheta: 1_000_000 },
};
const SHORT_CONFIGS: Readonly<Record<string, ShortConfig>> = {
  'Qwen/Qwen2.5-7B-Instruct-AWQ': QWEN25_INSTRUCT,
  'Qwen/Qwen2.5-14B-Instruct-AWQ': QWEN25_INSTRUCT,
  'Qwen/Qwen2.5-32B-Instruct-AWQ': QWEN25_INSTRUCT,
  'Qwen/Qwen2.5-72B-Instruct-AWQ': QWEN25_INSTRUCT,
};

/**
 * The config override (JSON text, for vLLM's --hf-overrides and SGLang's --json-model-override-args) that
 * lets the published checkpoint `ref` serve `context` tokens where its config.json declares fewer: YaRN at the
 * least whole factor that reaches the context (the cards' own factors are whole: 2.0, 4.0), and
 * max_position_embeddings set to the stretched length, since both engines take the context bound from
 * max_position_embeddings without multiplying a YaRN factor in (vllm 0.33.0 config/model.py
 * _get_and_verify_max_len: "YaRN variants leave max_position_embeddings already scaled"; sglang 0.5.23
 * srt/utils/hf_transformers/common.py get_context_length: factor 1 where original_max_position_embeddings is
 * given) and refuse a longer one. rope_theta is repeated inside rope_parameters, as vLLM's context-extension
 * example does (https://docs.vllm.ai/en/stable/examples/offline_inference/context_extension/). null: no override
 * needed, or none is known.
 */
export function contextOverride(ref: string, context: number): string | null {
  const c = SHORT_CONFIGS[ref];
  if (!c || context <= c.declared) return null;
  const factor = Math.ceil(context / c.yarn.original);
  if (factor > c.yarn.maxFactor) return null;
  // Floats written as floats (the cards' "factor": 4.0; transformers validates the YaRN factor as a float).
  const rope = `{"rope_type": "yarn", "factor": ${factor}.0, "original_max_position_embeddings": ${c.yarn.original}, "rope_theta": ${c.yarn.ropeTheta}.0}`;
  return `{"max_position_embeddings": ${c.yarn.original * factor}, "rope_parameters": ${rope}}`;
}

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
