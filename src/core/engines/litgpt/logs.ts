/** The training log lines LitGPT's finetune scripts print, read back by `check` (core/check/logs.ts). */
import { GB, median, type TrainLogFigures, type TrainLogReader } from '../../check/readers.js';

/**
 * LitGPT's iteration lines ("iter 100 step 50: loss 3.7451, iter time: 187.97ms" of older releases;
 * "Epoch 1 | iter 1 step 1 | loss train: ..., val: n/a | iter time: 123.45 ms (step)": litgpt/finetune/lora.py
 * at v0.5.13) and its memory line: the closing report's "- Memory Used : X GB" (create_finetuning_performance_report
 * in litgpt/utils.py at v0.5.13) or the older scripts' "Memory used: X GB", both torch.cuda.max_memory_allocated()
 * / 1e9. A step's time is the sum of its iterations' times (gradient accumulation); the first and last step are
 * left out.
 */
function litgpt(lines: readonly string[]): Omit<Partial<TrainLogFigures>, 'format'> | null {
  const perStep = new Map<number, number>();
  let memory: number | null = null;
  for (const line of lines) {
    const it = /iter \d+ step (\d+)\b.*?iter time:\s*([\d.]+)\s*ms/.exec(line);
    if (it) {
      const step = Number(it[1]);
      perStep.set(step, (perStep.get(step) ?? 0) + Number(it[2]) / 1000);
      continue;
    }
    const mem = /Memory [Uu]sed\s*:\s*([\d.]+)\s*GB/.exec(line);
    if (mem) memory = Number(mem[1]) * GB;
  }
  if (perStep.size === 0 && memory === null) return null;
  const steps = [...perStep.keys()].sort((a, b) => a - b);
  // The first and the last step may be partial (the log starts or ends mid-accumulation).
  const whole = steps.length > 2 ? steps.slice(1, -1) : steps;
  return {
    allocatedBytes: memory,
    stepSeconds: median(whole.map((s) => perStep.get(s)!)),
    steps: perStep.size,
  };
}

export const LITGPT_LOG: TrainLogReader = { format: 'litgpt', order: 30, read: litgpt };
