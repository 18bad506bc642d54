/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  refused,
  HF_CAUSAL,
  HF_TRAIN_REFUSES,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';

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
    ...HF_TRAIN_REFUSES,
    // unsloth 2026.10.9 models/loader.py: FastLanguageModel.from_pretrained's else branch calls
    // FastModel.from_pretrained, which loads a checkpoint with a vision_config through AutoModelForVision2Seq
    // (= AutoModelForImageTextToText) and returns its processor; FastVisionModel is FastModel (class body `pass`).
    ...refused(
      "FastLanguageModel hands this multimodal wrapper to FastModel (FastVisionModel), which loads it through AutoModelForImageTextToText with its processor; Unsloth's vision notebooks train it on image data through UnslothVisionDataCollator, which the launcher does not write (it writes text SFT)",
      ...VLM_WRAPPERS,
    ),
    ...refused('the launcher writes causal-LM SFT runs; BERT is a masked-LM encoder', 'bert'),
    ...refused(
      'Qwen3.5 entered transformers in v5.8.0, above the transformers 5.5.0 Unsloth caps',
      'qwen3_5_text',
      'qwen3_5_moe_text',
      'qwen3_5',
      'qwen3_5_moe',
    ),
  },
  // FastVisionModel fine-tunes the VLM wrappers and FastModel loads BERT (loader.py L906 hands both to FastModel);
  // the launcher writes causal-LM text SFT only.
  writerOnly: [...VLM_WRAPPERS, 'bert'],
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const UNSLOTH_ARCH_RULE = architectureRule(UNSLOTH_ARCHITECTURES);
