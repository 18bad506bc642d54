/**
 * What the Hugging Face training engines (hf-trainer, hf-fsdp, hf-deepspeed) run, as vramplan writes it: the
 * Trainer trains only (generation is hf-generate); each set's source is a transformers file at one commit.
 */
import type { EngineRuns } from '../runs.js';
import { TRL_OBJECTIVES } from './profile.js';

const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

/**
 * TRL v1.9.0 also trains PPO (trl/experimental/ppo/ppo_trainer.py: a value model beside the policy, a frozen
 * reward model, transformers generate), which vramplan estimates and does not write.
 */
export const HF_TRAINING_RUNS: EngineRuns = {
  widen: { objectives: [...TRL_OBJECTIVES, 'ppo'] },
  sources: {
    objectives:
      'https://github.com/huggingface/trl/blob/v1.9.0/trl/experimental/ppo/ppo_trainer.py',
    methods: `${H}/trainer.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    other: `${H}/trainer.py`,
  },
};

/**
 * The Trainer under Accelerate (hf-trainer, hf-fsdp) also trains in FP8: axolotl's `fp8: true` and
 * LLaMA-Factory's `fp8` hand Accelerate an AORecipeKwargs, which converts the linears with torchao.float8's
 * tensorwise recipe (https://docs.axolotl.ai/docs/mixed_precision.html "FP8 Mixed Precision"; accelerate
 * utils/ao.py). DeepSpeed keeps its own bf16/fp16 engine.
 */
export const HF_ACCELERATE_RUNS: EngineRuns = {
  ...HF_TRAINING_RUNS,
  widen: { ...HF_TRAINING_RUNS.widen, float8: ['fp8'] },
  sources: {
    ...HF_TRAINING_RUNS.sources,
    float8: 'https://docs.axolotl.ai/docs/mixed_precision.html',
  },
};
