/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  refused,
  HF_CAUSAL,
  HF_TRAIN_REFUSES,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';

// model_types the transformers 5.5.0 wheel has no models/<type>/ folder for (read from the wheel's file list).
const ABOVE_5_5 = ['mimo_v2_flash'];

/** Unsloth 2026.10.9: FastLanguageModel hands every model_type it has no fast path for to FastModel. */
export const UNSLOTH_ARCHITECTURES: ArchitectureTable = {
  engines: ['unsloth'],
  name: 'Unsloth 2026.10.9 (transformers capped at 5.5.0)',
  library: 'unsloth',
  versions: '==2026.10.9',
  // loader.py: llama/mistral/gemma/gemma2/qwen2/qwen3 fast paths, else FastModel.from_pretrained (L906).
  source:
    'https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/unsloth/models/loader.py#L828-L907',
  runs: [
    ...HF_CAUSAL.filter(
      (t) => !t.startsWith('qwen3_5') && !['bert', 'deepseek_v32', ...ABOVE_5_5].includes(t),
    ),
    ...VLM_WRAPPERS.filter((t) => !t.endsWith('_moe')),
  ],
  refuses: {
    ...HF_TRAIN_REFUSES,
    // FastModel loads an encoder-decoder through AutoModelForSeq2SeqLM (loader.py at 2026.10.9).
    ...refused(
      'the launcher writes causal-LM SFT runs; T5 is an encoder-decoder (FastModel loads it as a seq2seq class)',
      't5',
      'mt5',
    ),
    // The MoE wrappers: FastVisionModel.get_peft_model (unsloth 2026.10.9 models/vision.py) widens its regex to
    // routed experts and adds target_parameters for fused ones by rules of its own that no count here reproduces.
    ...refused(
      "Unsloth loads it through FastVisionModel, but what its get_peft_model adapts on this wrapper's routed experts is not modelled (the dense wrappers are)",
      'qwen3_vl_moe',
      'glm4v_moe',
    ),
    ...refused('the launcher writes causal-LM SFT runs; BERT is a masked-LM encoder', 'bert'),
    ...refused(
      'Qwen3.5 entered transformers in v5.8.0, above the transformers 5.5.0 Unsloth caps',
      'qwen3_5_text',
      'qwen3_5_moe_text',
      'qwen3_5',
      'qwen3_5_moe',
    ),
    ...refused(
      'transformers 5.5.0, the highest Unsloth allows, maps no deepseek_v32 (models/auto/modeling_auto.py of the 5.5.0 wheel)',
      'deepseek_v32',
    ),
    ...refused(
      'transformers 5.5.0, the highest Unsloth allows, has no such model (no models/<type>/ in the 5.5.0 wheel; it entered later)',
      ...ABOVE_5_5,
    ),
  },
  // FastVisionModel (FastModel) fine-tunes the MoE VLM wrappers and FastModel loads BERT (loader.py hands both on
  // past the fast paths); the launcher writes neither. The dense wrappers run: unsloth 2026.10.9 models/loader.py
  // FastLanguageModel.from_pretrained hands a config with a vision_config to FastModel (AutoModelForImageTextToText,
  // which transformers 5.5.0 maps for all nine wrappers); FastVisionModel is FastModel.
  writerOnly: ['qwen3_vl_moe', 'glm4v_moe', 'bert', 'qwen3_omni_moe'],
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const UNSLOTH_ARCH_RULE = architectureRule(UNSLOTH_ARCHITECTURES);
