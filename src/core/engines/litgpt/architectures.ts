/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import { architectureRule, allBut, type ArchitectureTable } from '../architectures.js';

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
  refuses: allBut(LITGPT_RUNS, 'LitGPT 0.5.13 has no config of this family (litgpt/config.py)'),
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const LITGPT_ARCH_RULE = architectureRule(LITGPT_ARCHITECTURES);
