/**
 * What the hf-trainer engine runs beyond what vramplan writes for it (runs.ts): Trainer: training only
 * (generation is hf-generate), FP8 through Accelerate, and LoRA over a GPTQ or AWQ int4 checkpoint: transformers
 * 5.14.1 lets the Trainer fine-tune a quantized model whose quantizer is trainable once adapters are attached
 * (trainer_utils.py validate_quantization_for_training; GptqHfQuantizer.is_trainable True, AwqQuantizer with
 * gptqmodel >= 5), and PEFT wraps the GPTQ/AWQ QuantLinear in its LoRA layer (peft tuners/lora/gptq.py, awq.py).
 */
import { HF_ACCELERATE_RUNS, hfZeroRefusal } from '../hf/runs.js';
import type { EngineRuns } from '../runs.js';
import { HF_TRAINER_PROFILE } from './profile.js';

export const HF_TRAINER_RUNS: EngineRuns = {
  ...HF_ACCELERATE_RUNS,
  widen: { ...HF_ACCELERATE_RUNS.widen, baseWeights: [...HF_TRAINER_PROFILE.baseWeights, 'int4'] },
  sources: {
    ...HF_ACCELERATE_RUNS.sources,
    weights:
      'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/quantizers/quantizer_gptq.py',
  },
  refusal: hfZeroRefusal('hf-trainer'),
};
