/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import { architectureRule, allBut, type ArchitectureTable } from '../architectures.js';

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
  refuses: allBut(TITAN_RUNS, 'torchtitan 0.3.0 registers no model for it (torchtitan/models/)'),
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const TORCHTITAN_ARCH_RULE = architectureRule(TORCHTITAN_ARCHITECTURES);
