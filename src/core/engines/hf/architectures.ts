/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  ENCODER_ONLY,
  ENCODER_ONLY_WHY,
  HF_CAUSAL,
  HF_GENERATE_REFUSES,
  HF_GENERATE_WRITER_ONLY,
  HF_TRAIN_REFUSES,
  HF_TRAIN_WRITER_ONLY,
  refused,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';

const MODELING_AUTO =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/models/auto/modeling_auto.py';

/**
 * transformers 5.14.1 (HF_PINS): the three HF training engines. train.py loads a config with a vision_config
 * through AutoModelForImageTextToText (trainer.ts MODEL_LOADING), so the multimodal wrappers run beside the
 * decoders (MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES maps every one of them). Encoders transformers maps to a
 * causal class (BERT) load but do not train as train.py's causal-LM SFT would need (ENCODER_ONLY): the writer refuses them.
 */
export const HF_ARCHITECTURES: ArchitectureTable = {
  engines: ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'],
  name: 'transformers 5.14.1 (AutoModelForCausalLM / AutoModelForImageTextToText)',
  library: 'transformers',
  versions: '==5.14.1',
  source: MODELING_AUTO,
  runs: [...HF_CAUSAL.filter((t) => !ENCODER_ONLY.includes(t)), ...VLM_WRAPPERS],
  refuses: { ...HF_TRAIN_REFUSES, ...refused(ENCODER_ONLY_WHY, ...ENCODER_ONLY) },
  writerOnly: [...HF_TRAIN_WRITER_ONLY, ...ENCODER_ONLY],
};

/** transformers 5.14.1: hf-generate, whose generate.py (vllm/launch.ts) loads AutoModelForCausalLM only. */
export const HF_GENERATE_ARCHITECTURES: ArchitectureTable = {
  engines: ['hf-generate'],
  name: 'transformers 5.14.1 (AutoModelForCausalLM)',
  library: 'transformers',
  versions: '==5.14.1',
  source: MODELING_AUTO,
  runs: HF_CAUSAL,
  refuses: HF_GENERATE_REFUSES,
  writerOnly: HF_GENERATE_WRITER_ONLY,
};

/** The tables as `forbid` rules, made once (the planner asks per layout shape). */
export const HF_ARCH_RULE = architectureRule(HF_ARCHITECTURES);
export const HF_GENERATE_ARCH_RULE = architectureRule(HF_GENERATE_ARCHITECTURES);
