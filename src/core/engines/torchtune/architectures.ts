/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import { architectureRule, allBut, type ArchitectureTable } from '../architectures.js';

const TUNE_RUNS = ['llama', 'mistral', 'gemma', 'gemma2', 'phi3', 'qwen2', 'mllama'];
/** torchtune 0.6.1 model builders (torchtune/models/: llama2/3/3_1/3_2/3_3, llama3_2_vision, mistral, gemma, gemma2, phi3, phi4, qwen2, qwen2_5; t5 is flux's text encoder only). */
export const TORCHTUNE_ARCHITECTURES: ArchitectureTable = {
  engines: ['torchtune'],
  name: 'torchtune 0.6.1',
  library: 'torchtune',
  versions: '==0.6.1',
  source: 'https://github.com/pytorch/torchtune/tree/v0.6.1/torchtune/models',
  runs: TUNE_RUNS,
  refuses: allBut(
    TUNE_RUNS,
    `torchtune 0.6.1 has no model builder for it (torchtune/models/ builds model_type ${TUNE_RUNS.join(', ')})`,
  ),
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const TORCHTUNE_ARCH_RULE = architectureRule(TORCHTUNE_ARCHITECTURES);
