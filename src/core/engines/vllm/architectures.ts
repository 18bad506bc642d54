/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  refused,
  HF_CAUSAL,
  OMNI,
  REMOTE_CODE,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';

// REMOTE_CODE: vLLM picks the model class by config.architectures (DeepseekV3ForCausalLM for Kimi K2;
// BailingMoeForCausalLM and BailingMoeV2ForCausalLM both to bailing_moe.py in _TEXT_GENERATION_MODELS).
const VLLM_RUNS = [
  ...HF_CAUSAL.filter((t) => !['bert', 'mllama', 'gpt_neo'].includes(t)),
  ...VLM_WRAPPERS,
  ...REMOTE_CODE,
  // Qwen3OmniMoeForConditionalGeneration -> Qwen3OmniMoeThinkerForConditionalGeneration (_MULTIMODAL_MODELS).
  ...OMNI,
];
/**
 * vLLM: _TEXT_GENERATION_MODELS and _MULTIMODAL_MODELS of registry.py (read at 0002bff0; Qwen3.5 and
 * Glm4MoeLite are registered by the later releases the 0.33.0 pin includes, Gemma4ForCausalLM,
 * Gemma4ForConditionalGeneration and GlmMoeDsaForCausalLM by v0.19.0: registry.py of the 0.19.0 wheel). SmolLM3 runs
 * on the Transformers backend (_TRANSFORMERS_SUPPORTED_MODELS).
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
    ...refused('registry.py registers no GPTNeoForCausalLM', 'gpt_neo'),
  },
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const VLLM_ARCH_RULE = architectureRule(VLLM_ARCHITECTURES);
