/**
 * Which `model_type`s each engine runs at its pinned release, as data: one table per engine, each naming the
 * source it was read from. Every model_type the config readers know (model/hf-config.ts SUPPORTED_ARCHITECTURES)
 * has an explicit verdict per engine (test/engines/architectures.test.ts fails on a new family without one);
 * a model_type outside the readers (read as the closest layout, with a warning) gets no verdict here.
 * `architectureRule` turns a table into a `forbid` rule: the planner never ranks, and `launch` refuses, an
 * engine that has no model class for the plan's model_type.
 */
import type { Engine } from '../../schema/engine.js';
import type { Rule, RuleInput } from './rules.js';

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
  /**
   * The refused model_types the library itself runs (through another auto class or trainer) but vramplan's
   * launcher does not write: the planner and `launch` refuse them, `estimate` models them (Rule.writerFor).
   */
  writerOnly?: readonly string[];
}

/** `why` for each model_type of `types` (a table's refusals, grouped by reason). */
export const refused = (why: string, ...types: string[]): Record<string, string> =>
  Object.fromEntries(types.map((t) => [t, why]));

/** The Hugging Face multimodal wrappers transformers maps only to an image-text-to-text class. */
export const VLM_WRAPPERS = [
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
 * 00100232; qwen3_5* added in v5.8.0 with its "VLM compatibility" entries, glm4_moe_lite in v5; deepseek_v32 through
 * afmoe and mamba through longcat_flash as the 5.14.1 wheel maps them, gemma4 and gemma3n to their *ForConditionalGeneration): gemma3,
 * llama4 and mllama load through AutoModelForCausalLM although their checkpoints are multimodal (gemma3 as
 * Gemma3ForConditionalGeneration; mllama and llama4 as their text-only *ForCausalLM, auto_factory.py handing
 * them get_text_config(), so train.py loads any config with a vision_config through AutoModelForImageTextToText).
 */
export const HF_CAUSAL = [
  'llama', 'mistral', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'gemma', 'gemma2',
  'gemma3_text', 'phi3', 'stablelm', 'gpt_oss', 'deepseek_v2', 'deepseek_v3', 'phi', 'gptj', 'gpt_neox',
  'falcon', 'RefinedWebModel', 'RefinedWeb', 'bloom', 'opt', 'gpt2', 'gpt_bigcode', 'bert', 'mllama',
  'qwen3_next', 'qwen3_5_text', 'qwen3_5_moe_text', 'qwen3_5', 'qwen3_5_moe', 'gemma3', 'llama4_text',
  'llama4', 'nemotron_h', 'granitemoehybrid', 'glm', 'glm4', 'glm4_moe', 'glm4_moe_lite', 'olmo2', 'olmo3',
  'smollm3', 'granite', 'granitemoe', 'granitemoeshared', 'cohere', 'cohere2', 'starcoder2', 'exaone4',
  'seed_oss', 'ernie4_5', 'ernie4_5_moe', 'hunyuan_v1_dense', 'hunyuan_v1_moe', 'olmoe', 'phimoe',
  'minimax_m2', 'lfm2', 'lfm2_moe', 'jamba', 'falcon_h1', 'bamba', 'deepseek_v32', 'glm_moe_dsa', 'apertus',
  'arcee', 'jais2', 'nemotron', 'mpt', 'gpt_neo', 'gemma4_text', 'gemma4', 'gemma3n_text', 'gemma3n', 'dbrx',
  'afmoe', 'mamba', 'falcon_mamba', 'mamba2', 'minimax', 'mimo_v2_flash', 'longcat_flash',
]; // prettier-ignore

/**
 * model_types transformers does not map, whose config.json names a registered architecture class and points its
 * auto_map at the checkpoint's own code: Kimi K2 (model_type kimi_k2, architectures [DeepseekV3ForCausalLM],
 * moonshotai/Kimi-K2-Instruct config.json), MiniMax-Text-01 and MiniMax-M1 (minimax_text_01 / minimax_m1,
 * [MiniMaxText01ForCausalLM] / [MiniMaxM1ForCausalLM], MiniMaxAI's config.json), Kimi Linear (kimi_linear,
 * [KimiLinearForCausalLM], moonshotai/Kimi-Linear-48B-A3B-Instruct config.json), Ling / Ring v1 and 2.0 (bailing_moe,
 * [BailingMoeForCausalLM] / [BailingMoeV2ForCausalLM], inclusionAI's config.json), Step3 (step3_vl, its text model
 * step3_text: Step3VLConfig / Step3TextConfig, which vLLM and SGLang ship in their own configs/step3_vl.py; the
 * transformers 5.14.1 wheel has no models/step3*). Engines that dispatch on
 * `architectures` run them as that class where they register it.
 */
export const REMOTE_CODE = [
  'kimi_k2',
  'minimax_text_01',
  'minimax_m1',
  'kimi_linear',
  'bailing_moe',
  'step3_text',
  'step3_vl',
];

/**
 * Any-to-any wrappers transformers maps only to AutoModelForMultimodalLM and AutoModelForTextToWaveform, not to a
 * causal or image-text-to-text class (modeling_auto.py at 00100232: qwen3_omni_moe). vLLM and SGLang serve their thinker.
 */
export const OMNI = ['qwen3_omni_moe'];

/**
 * The model_types the HF refusals name for what vramplan's train.py and generate.py load, not for what the
 * libraries run: transformers maps T5 to AutoModelForSeq2SeqLM (modeling_auto.py at 00100232), which TRL's
 * SFTTrainer and PEFT train; generate.py also leaves out the wrappers, which transformers maps only to
 * AutoModelForImageTextToText.
 */
export const HF_TRAIN_WRITER_ONLY = ['t5', 'mt5', ...OMNI];

/**
 * Encoder-only model_types transformers maps to AutoModelForCausalLM (bert: BertLMHeadModel) whose self-attention
 * is causal only when the config sets is_decoder, which their checkpoints leave off (transformers 5.14.1
 * models/bert/modeling_bert.py: `BertAttention(config, is_causal=config.is_decoder)`; BertLMHeadModel warns "If you
 * want to use `BertLMHeadModel` as a standalone, add `is_decoder=True.`"): a causal-LM SFT run over such a
 * checkpoint attends to every later token it is asked to predict. The libraries run it; train.py is not the job.
 */
export const ENCODER_ONLY = ['bert'];
export const ENCODER_ONLY_WHY =
  "train.py writes causal-LM SFT, and this encoder's attention is bidirectional (config.is_decoder unset), so each token sees the ones it is trained to predict";
export const HF_GENERATE_WRITER_ONLY = [...HF_TRAIN_WRITER_ONLY, ...VLM_WRAPPERS];

/**
 * What the three HF training engines refuse. train.py loads a config with a vision_config through
 * AutoModelForImageTextToText (hf/trainer.ts MODEL_LOADING), which transformers 5.14.1 maps for every wrapper
 * (MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES, modeling_auto.py at 00100232), and TRL's SFTTrainer trains the
 * model on text with a tokenizer as processing_class (trl v1.9.0 trl/trainer/sft_trainer.py L985-L990).
 */
export const HF_TRAIN_REFUSES = {
  ...refused(
    'transformers maps no such model_type: the checkpoint loads its own modeling code (trust_remote_code), which vramplan neither models nor launches',
    ...REMOTE_CODE,
  ),
  ...refused(
    'train.py and generate.py load AutoModelForCausalLM or, for a config with a vision_config, AutoModelForImageTextToText, neither of which transformers maps for an encoder-decoder (a seq2seq class)',
    't5',
    'mt5',
  ),
  ...refused(
    'train.py and generate.py load AutoModelForCausalLM or AutoModelForImageTextToText, and transformers maps this any-to-any model to neither (only AutoModelForMultimodalLM)',
    ...OMNI,
  ),
};

/** What hf-generate refuses: the training refusals, and the wrappers generate.py's causal class does not load. */
export const HF_GENERATE_REFUSES = {
  ...HF_TRAIN_REFUSES,
  ...refused(
    'generate.py loads AutoModelForCausalLM, which transformers does not map for this multimodal wrapper (only AutoModelForImageTextToText)',
    ...VLM_WRAPPERS,
  ),
};

/** Refusals of every model_type the readers know but `keep`. */
export const allBut = (keep: readonly string[], why: string): Record<string, string> =>
  refused(
    why,
    ...[...HF_CAUSAL, 't5', 'mt5', ...VLM_WRAPPERS, ...REMOTE_CODE, ...OMNI].filter(
      (t) => !keep.includes(t),
    ),
  );

/** A table as a `forbid` rule: the model_types it refuses, each refusal naming the engine, type and source. */
export function architectureRule(t: ArchitectureTable): Rule {
  const why = new Map(Object.entries(t.refuses));
  const writer = new Set(t.writerOnly ?? []);
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
    ...(writer.size > 0 && { writerFor: (x: RuleInput) => writer.has(x.arch.modelType) }),
  };
}
