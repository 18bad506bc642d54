/**
 * What the hf-deepspeed engine runs, as vramplan writes it (runs.ts): Trainer with a DeepSpeed config
 * (integrations/deepspeed.py), and beyond it LoRA over a GPTQ or AWQ int4 checkpoint below ZeRO-3, as the Trainer
 * alone does (hf-trainer/runs.ts): the quantizer is trainable once adapters are attached (trainer_utils.py
 * validate_quantization_for_training; GptqHfQuantizer.is_trainable True), ZeRO-1/2 leave the frozen packed weights
 * whole on each rank, and the profile's shardedQuantized (nf4, fp4) keeps int4 out of ZeRO-3. QwenLM/Qwen's
 * finetune/finetune_qlora_single_gpu.sh (QwenLM/Qwen@e6f2a7a) trains Qwen-7B-Chat-Int4 (GPTQ) under DeepSpeed ZeRO-2.
 * It also trains in FP8 (torchao float8, as on the other Accelerate engines): Accelerator.prepare converts the
 * linears (_prepare_ao) before _prepare_deepspeed, and DeepSpeedPlugin keeps DeepSpeed's bf16 engine for fp8
 * ("bf16.enabled": mixed_precision in ("bf16", "fp8")) (accelerate@09228237 accelerator.py, utils/dataclasses.py;
 * benchmarks/fp8/torchao/distrib_deepspeed.py trains it at ZeRO 1-3).
 */
import type { EngineRuns } from '../runs.js';
import { HF_TRAINING_RUNS, hfZeroRefusal, bnb4bitLoadNote } from '../hf/runs.js';
import { HF_DEEPSPEED_PROFILE } from './profile.js';

const ACCELERATE =
  'https://github.com/huggingface/accelerate/blob/09228237b95789ea2ad87e669e7b885855b97f97/src/accelerate';

export const HF_DEEPSPEED_RUNS: EngineRuns = {
  ...HF_TRAINING_RUNS,
  widen: {
    ...HF_TRAINING_RUNS.widen,
    baseWeights: [...HF_DEEPSPEED_PROFILE.baseWeights, 'int4'],
    float8: ['fp8'],
  },
  sources: {
    ...HF_TRAINING_RUNS.sources,
    float8: `${ACCELERATE}/accelerator.py`,
    weights:
      'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/quantizers/quantizer_gptq.py',
  },
  refusal: hfZeroRefusal('hf-deepspeed'),
  parallelNote: bnb4bitLoadNote('hf-deepspeed'),
};
