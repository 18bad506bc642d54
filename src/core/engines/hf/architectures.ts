/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  HF_CAUSAL,
  HF_REFUSES,
  HF_WRITER_ONLY,
  type ArchitectureTable,
} from '../architectures.js';

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
  writerOnly: HF_WRITER_ONLY,
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const HF_ARCH_RULE = architectureRule(HF_ARCHITECTURES);
