/**
 * Which `model_type`s each engine runs at its pinned release, as data: one table per engine, each naming the
 * source it was read from. Every model_type the config readers know (model/hf-config.ts SUPPORTED_ARCHITECTURES)
 * has an explicit verdict per engine (test/engines/architectures.test.ts fails on a new family without one);
 * a model_type outside the readers (read as the closest layout, with a warning) gets no verdict here.
 * `architectureRule` turns a table into a `forbid` rule: the planner never ranks, and `launch` refuses, an
 * engine that has no model class for the plan's model_type.
 */
import type { Engine } from '../../schema/engine.js';
import type { Rule } from './rules.js';

export interface ArchitectureTable {
  /** The engines the table holds for (the three HF training engines share transformers' auto classes). */
  engines: readonly Engine[];
  /** The library and release as a user reads it, e.g. "vLLM 0.33.0". */
  name: string;
  library: string;
  versions: string;
  /** The registry read: a file at a tag or commit. */
  source: string;
  runs: readonly string[];
  /** model_type → why the engine does not run it (one short clause). */
  refuses: Readonly<Record<string, string>>;
}

/** `why` for each model_type of `types` (a table's refusals, grouped by reason). */
const refused = (why: string, ...types: string[]): Record<string, string> =>
  Object.fromEntries(types.map((t) => [t, why]));

/** The Hugging Face multimodal wrappers transformers maps only to an image-text-to-text class. */
const VLM_WRAPPERS = [
  'qwen3_vl',
  'qwen3_vl_moe',
  'qwen2_5_vl',
  'qwen2_vl',
  'mistral3',
  'llava',
  'llava_next',
  'glm4v',
  'glm4v_moe',
];

/**
 * The decoder model_types transformers maps in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES (modeling_auto.py read at
 * 00100232; qwen3_5* added in v5.8.0 with its "VLM compatibility" entries, glm4_moe_lite in v5): gemma3,
 * llama4 and mllama load through AutoModelForCausalLM although their checkpoints are multimodal.
 */
const HF_CAUSAL = [
  'llama', 'mistral', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'gemma', 'gemma2',
  'gemma3_text', 'phi3', 'stablelm', 'gpt_oss', 'deepseek_v2', 'deepseek_v3', 'phi', 'gptj', 'gpt_neox',
  'falcon', 'RefinedWebModel', 'RefinedWeb', 'bloom', 'opt', 'gpt2', 'gpt_bigcode', 'bert', 'mllama',
  'qwen3_next', 'qwen3_5_text', 'qwen3_5_moe_text', 'qwen3_5', 'qwen3_5_moe', 'gemma3', 'llama4_text',
  'llama4', 'nemotron_h', 'granitemoehybrid', 'glm', 'glm4', 'glm4_moe', 'glm4_moe_lite', 'olmo2', 'olmo3',
  'smollm3', 'granite', 'granitemoe', 'granitemoeshared', 'cohere', 'cohere2', 'starcoder2', 'exaone4',
  'seed_oss', 'ernie4_5', 'ernie4_5_moe', 'hunyuan_v1_dense', 'hunyuan_v1_moe', 'olmoe', 'phimoe',
  'minimax_m2', 'lfm2', 'lfm2_moe', 'jamba', 'falcon_h1', 'bamba',
]; // prettier-ignore

const HF_REFUSES = {
  ...refused(
    'train.py and generate.py load AutoModelForCausalLM, which transformers maps only for decoders (an encoder-decoder is a seq2seq class)',
    't5',
    'mt5',
  ),
  ...refused(
    'train.py and generate.py load AutoModelForCausalLM; transformers maps this multimodal wrapper only to AutoModelForImageTextToText',
    ...VLM_WRAPPERS,
  ),
};

/** transformers 5.14.1 (HF_PINS): the three HF training engines and hf-generate. */
export const HF_ARCHITECTURES: ArchitectureTable = {
  engines: ['hf-trainer', 'hf-fsdp', 'hf-deepspeed', 'hf-generate'],
  name: 'transformers 5.14.1 (AutoModelForCausalLM)',
  library: 'transformers',
  versions: '==5.14.1',
  source:
    'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/models/auto/modeling_auto.py',
  runs: HF_CAUSAL,
  refuses: HF_REFUSES,
};

/** Unsloth 2026.10.9: FastLanguageModel hands every model_type it has no fast path for to FastModel. */
export const UNSLOTH_ARCHITECTURES: ArchitectureTable = {
  engines: ['unsloth'],
  name: 'Unsloth 2026.10.9 (transformers capped at 5.5.0)',
  library: 'unsloth',
  versions: '==2026.10.9',
  // loader.py: llama/mistral/gemma/gemma2/qwen2/qwen3 fast paths, else FastModel.from_pretrained (L906).
  source:
    'https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/unsloth/models/loader.py#L828-L907',
  runs: HF_CAUSAL.filter((t) => !t.startsWith('qwen3_5') && t !== 'bert'),
  refuses: {
    ...HF_REFUSES,
    ...refused('the launcher writes causal-LM SFT runs; BERT is a masked-LM encoder', 'bert'),
    ...refused(
      'Qwen3.5 entered transformers in v5.8.0, above the transformers 5.5.0 Unsloth caps',
      'qwen3_5_text',
      'qwen3_5_moe_text',
      'qwen3_5',
      'qwen3_5_moe',
    ),
  },
};

const ALL_BUT = (keep: readonly string[], why: string): Record<string, string> =>
  refused(why, ...[...HF_CAUSAL, 't5', 'mt5', ...VLM_WRAPPERS].filter((t) => !keep.includes(t)));

const TUNE_RUNS = ['llama', 'mistral', 'gemma', 'gemma2', 'phi3', 'qwen2', 'mllama'];
/** torchtune 0.6.1 model builders (torchtune/models/: llama2/3/3_1/3_2/3_3, llama3_2_vision, mistral, gemma, gemma2, phi3, phi4, qwen2, qwen2_5; t5 is flux's text encoder only). */
export const TORCHTUNE_ARCHITECTURES: ArchitectureTable = {
  engines: ['torchtune'],
  name: 'torchtune 0.6.1',
  library: 'torchtune',
  versions: '==0.6.1',
  source: 'https://github.com/pytorch/torchtune/tree/v0.6.1/torchtune/models',
  runs: TUNE_RUNS,
  refuses: ALL_BUT(TUNE_RUNS, 'torchtune 0.6.1 has no model builder for it (torchtune/models/)'),
};

const TITAN_RUNS = [
  'llama',
  'qwen3',
  'qwen3_moe',
  'deepseek_v3',
  'gpt_oss',
  'qwen3_5_text',
  'qwen3_5_moe_text',
  'qwen3_5',
  'qwen3_5_moe',
];
/** torchtitan 0.3.0 `_supported_models` (torchtitan/models/__init__.py at b5bcd76: deepseek_v3, flux, gpt_oss, kimi_k2_7, llama3, muse_glimmer, qwen3, qwen3_5). */
export const TORCHTITAN_ARCHITECTURES: ArchitectureTable = {
  engines: ['torchtitan'],
  name: 'torchtitan 0.3.0',
  library: 'torchtitan',
  versions: '==0.3.0',
  source:
    'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/torchtitan/models/__init__.py',
  runs: TITAN_RUNS,
  refuses: ALL_BUT(TITAN_RUNS, 'torchtitan 0.3.0 registers no model for it (torchtitan/models/)'),
};

const LITGPT_RUNS = [
  'llama',
  'mistral',
  'mixtral',
  'gemma',
  'gemma2',
  'gemma3_text',
  'gemma3',
  'phi',
  'phi3',
  'qwen2',
  'qwen3',
  'qwen3_moe',
  'falcon',
  'RefinedWebModel',
  'RefinedWeb',
  'gpt_neox',
  'stablelm',
  'olmo2',
];
/** LitGPT 0.5.13 config.py families (Llama, CodeLlama, Mistral/Mixtral, Gemma 1-3, Phi 1.5-4, Qwen2.5/QwQ/Qwen3, Falcon, Pythia, StableLM, OLMo 2). */
export const LITGPT_ARCHITECTURES: ArchitectureTable = {
  engines: ['litgpt'],
  name: 'LitGPT 0.5.13',
  library: 'litgpt',
  versions: '==0.5.13',
  source:
    'https://github.com/Lightning-AI/litgpt/blob/26857050fe3ff627cd714fe92f5838f51a3d5efa/litgpt/config.py',
  runs: LITGPT_RUNS,
  refuses: ALL_BUT(LITGPT_RUNS, 'LitGPT 0.5.13 has no config of this family (litgpt/config.py)'),
};

const VLLM_RUNS = [...HF_CAUSAL.filter((t) => !['bert', 'mllama'].includes(t)), ...VLM_WRAPPERS];
/**
 * vLLM: _TEXT_GENERATION_MODELS and _MULTIMODAL_MODELS of registry.py (read at 0002bff0; Qwen3.5 and
 * Glm4MoeLite are registered by the later releases the 0.33.0 pin includes). SmolLM3 runs on the Transformers
 * backend (_TRANSFORMERS_SUPPORTED_MODELS).
 */
export const VLLM_ARCHITECTURES: ArchitectureTable = {
  engines: ['vllm'],
  name: 'vLLM 0.33.0',
  library: 'vllm',
  versions: '==0.33.0',
  source:
    'https://github.com/vllm-project/vllm/blob/0002bff0b6cb36a3c8a17364de3303664463c412/vllm/model_executor/models/registry.py',
  runs: VLLM_RUNS,
  refuses: {
    ...refused('vLLM serves no encoder-decoder but Whisper (V0 removed them)', 't5', 'mt5'),
    ...refused(
      'BertForMaskedLM is not a text-generation architecture (BERT is embedding-only)',
      'bert',
    ),
    ...refused('MllamaForConditionalGeneration was removed after 0.10.2', 'mllama'),
  },
};

const SGLANG_REFUSED = [
  't5',
  'mt5',
  'bert',
  'RefinedWebModel', // falcon.py's EntryClass is [FalconForCausalLM]: no RWForCausalLM
  'RefinedWeb',
  'bloom',
  'glm',
  'llava_next',
];
/**
 * SGLang 0.5.23: the model files of python/sglang/srt/models/ (bloom.py, glm.py, llava_next.py absent;
 * falcon.py, gpt_neox.py, jamba.py, starcoder2.py, smollm3.py, granitemoeshared.py, seed_oss.py present).
 */
export const SGLANG_ARCHITECTURES: ArchitectureTable = {
  engines: ['sglang'],
  name: 'SGLang 0.5.23',
  library: 'sglang',
  versions: '==0.5.23',
  source:
    'https://github.com/sgl-project/sglang/tree/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt/models',
  runs: [...HF_CAUSAL, ...VLM_WRAPPERS].filter((t) => !SGLANG_REFUSED.includes(t)),
  refuses: refused(
    'SGLang has no native model class for it (python/sglang/srt/models/)',
    ...SGLANG_REFUSED,
  ),
};

const LLAMA_CPP_REFUSED = ['t5', 'mt5', 'bert', 'opt', 'gptj', 'mllama', 'llava_next'];
/** llama.cpp: the architectures convert_hf_to_gguf.py registers (a GGUF llama-server can generate from). */
export const LLAMA_CPP_ARCHITECTURES: ArchitectureTable = {
  engines: ['llama.cpp'],
  name: 'llama.cpp (server-cuda, 25d5b0c5)',
  library: 'llama.cpp',
  versions: '>=b6000',
  source:
    'https://github.com/ggml-org/llama.cpp/blob/a458664fc83b6513baea7adafcb0ef0626b006f8/convert_hf_to_gguf.py',
  runs: [...HF_CAUSAL, ...VLM_WRAPPERS].filter((t) => !LLAMA_CPP_REFUSED.includes(t)),
  refuses: {
    ...refused(
      'convert_hf_to_gguf.py converts it, but llama-server does not generate with an encoder-decoder or an embedding-only model',
      't5',
      'mt5',
      'bert',
    ),
    ...refused(
      'convert_hf_to_gguf.py registers no converter for it',
      'opt',
      'gptj',
      'mllama',
      'llava_next',
    ),
  },
};

export const ARCHITECTURE_TABLES: readonly ArchitectureTable[] = [
  HF_ARCHITECTURES,
  UNSLOTH_ARCHITECTURES,
  TORCHTUNE_ARCHITECTURES,
  TORCHTITAN_ARCHITECTURES,
  LITGPT_ARCHITECTURES,
  VLLM_ARCHITECTURES,
  SGLANG_ARCHITECTURES,
  LLAMA_CPP_ARCHITECTURES,
];

/** The table that holds for `engine`. */
export const architecturesOf = (engine: Engine): ArchitectureTable =>
  ARCHITECTURE_TABLES.find((t) => t.engines.includes(engine))!;

/** A table as a `forbid` rule: the model_types it refuses, each refusal naming the engine, type and source. */
export function architectureRule(t: ArchitectureTable): Rule {
  const why = new Map(Object.entries(t.refuses));
  return {
    id: `${t.library.replace('.', '-')}-architecture`,
    says: `${t.name} has no model class for this model_type`,
    reason: (x) =>
      `${t.name} does not run model_type '${x.arch.modelType}': ${why.get(x.arch.modelType) ?? 'no model class for it'} (rule ${t.library.replace('.', '-')}-architecture: ${t.source})`,
    library: t.library,
    versions: t.versions,
    source: t.source,
    effect: 'forbid',
    applies: (x) => why.has(x.arch.modelType),
  };
}

/** One rule per table, made once (the planner asks per layout shape: a Map lookup). */
export const ARCH_RULES = {
  hf: architectureRule(HF_ARCHITECTURES),
  unsloth: architectureRule(UNSLOTH_ARCHITECTURES),
  torchtune: architectureRule(TORCHTUNE_ARCHITECTURES),
  torchtitan: architectureRule(TORCHTITAN_ARCHITECTURES),
  litgpt: architectureRule(LITGPT_ARCHITECTURES),
  vllm: architectureRule(VLLM_ARCHITECTURES),
  sglang: architectureRule(SGLANG_ARCHITECTURES),
  llamaCpp: architectureRule(LLAMA_CPP_ARCHITECTURES),
} as const;
