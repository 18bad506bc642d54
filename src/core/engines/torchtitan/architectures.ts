/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import { architectureRule, allBut, refused, type ArchitectureTable } from '../architectures.js';

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

const TITAN_COMMIT =
  'https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a';

/**
 * The model_types torchtitan 0.3.0 trains through experiments/transformers_modeling_backend (in the wheel's
 * experiments `_supported_experiments`): the transformers model class with its attention on FlexAttention and its
 * MoE block swapped to torchtitan's grouped experts, under FSDP2, loading HF weights (initial_load_in_hf). Those its
 * README names as tested beyond the registered models: phi (microsoft/phi-2), qwen2 (Qwen/Qwen2.5-7B), mistral
 * (mistralai/Mistral-7B-v0.1), mixtral, olmoe, deepseek_v2 and glm4_moe (the MoE table's model_types). Full
 * fine-tunes only: its "Further work" lists "Add LORA support", and experiments/rl builds torchtitan's own models.
 */
export const TITAN_HF_BACKEND = [
  'phi',
  'qwen2',
  'mistral',
  'mixtral',
  'olmoe',
  'deepseek_v2',
  'glm4_moe',
];
export const TITAN_HF_BACKEND_SOURCE = `${TITAN_COMMIT}/torchtitan/experiments/transformers_modeling_backend/README.md`;

/** torchtitan 0.3.0 `_supported_models` (torchtitan/models/__init__.py at b5bcd76: deepseek_v3, flux, gpt_oss, kimi_k2_7, llama3, muse_glimmer, qwen3, qwen3_5). */
export const TORCHTITAN_ARCHITECTURES: ArchitectureTable = {
  engines: ['torchtitan'],
  name: 'torchtitan 0.3.0',
  library: 'torchtitan',
  versions: '==0.3.0',
  source: `${TITAN_COMMIT}/torchtitan/models/__init__.py`,
  runs: TITAN_RUNS,
  refuses: {
    ...allBut(
      [...TITAN_RUNS, ...TITAN_HF_BACKEND],
      'torchtitan 0.3.0 registers no model for it (torchtitan/models/)',
    ),
    ...refused(
      `no model in torchtitan/models/, which is what vramplan's launcher writes; torchtitan trains it only through experiments/transformers_modeling_backend (--module transformers_modeling_backend, full fine-tunes, ${TITAN_HF_BACKEND_SOURCE}), which estimate models`,
      ...TITAN_HF_BACKEND,
    ),
  },
  writerOnly: TITAN_HF_BACKEND,
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const TORCHTITAN_ARCH_RULE = architectureRule(TORCHTITAN_ARCHITECTURES);
