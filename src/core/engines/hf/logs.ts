/** The Hugging Face Trainer's closing metrics, read back by `check` (core/check/logs.ts). */
import { type TrainLogFigures, type TrainLogReader } from '../../check/readers.js';

/**
 * The Hugging Face Trainer's closing metrics dict ("{'train_runtime': ..., 'train_steps_per_second': ...}",
 * transformers trainer_utils.speed_metrics): seconds per optimizer step = 1 / train_steps_per_second (the run's
 * mean, warm-up included).
 */
function hfTrainer(lines: readonly string[]): Omit<Partial<TrainLogFigures>, 'format'> | null {
  for (const line of [...lines].reverse()) {
    const m = /['"]train_steps_per_second['"]:\s*([\d.e+-]+)/.exec(line);
    if (m && Number(m[1]) > 0) {
      return { stepSeconds: 1 / Number(m[1]), steps: 1 };
    }
  }
  return null;
}

export const HF_TRAINER_LOG: TrainLogReader = { format: 'hf-trainer', order: 40, read: hfTrainer };
