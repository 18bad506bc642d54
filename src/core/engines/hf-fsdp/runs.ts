/** What the hf-fsdp engine runs, as vramplan writes it (runs.ts): Trainer under Accelerate FSDP (fsdp_config). */
import type { EngineRuns } from '../runs.js';
import { HF_ACCELERATE_RUNS, hfZeroRefusal, bnb4bitLoadNote } from '../hf/runs.js';

/**
 * The Trainer also runs tensor and context parallelism over FSDP2 through Accelerate's ParallelismConfig
 * (TrainingArguments.parallelism_config, "Requires Accelerate 1.10.1"; trainer.py _build_accelerator_args sets tp_size from a model loaded
 * with a tp_plan and divides the data-parallel world by tp_size * cp_size: transformers 5.14.1 wheel, trainer.py
 * get_total_train_batch_size). The TP plans shard the linears only
 * (profile tpShardsNormsAndLoss false). vramplan writes neither.
 */
export const HF_FSDP_RUNS: EngineRuns = {
  ...HF_ACCELERATE_RUNS,
  widen: { ...HF_ACCELERATE_RUNS.widen, tp: true, cp: true },
  sources: {
    ...HF_ACCELERATE_RUNS.sources,
    parallel:
      'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers/trainer.py',
  },
  refusal: hfZeroRefusal('hf-fsdp'),
  parallelNote: bnb4bitLoadNote('hf-fsdp'),
};
