/** The training log lines torchtune's recipes print, read back by `check` (core/check/logs.ts). */
import {
  GiB,
  max,
  median,
  type TrainLogFigures,
  type TrainLogReader,
} from '../../check/readers.js';

/**
 * torchtune's metric logger line (DiskLogger / StdoutLogger: "Step N | key:value ..."). With
 * log_peak_memory_stats, peak_memory_alloc / _reserved are torch.cuda.max_memory_allocated / _reserved in GiB
 * (torchtune/training/memory.py get_memory_stats at v0.6.1: bytes / 1024**3); tokens_per_second_per_gpu is its
 * own counter (recipes/lora_finetune_single_device.py at v0.6.1); the line is metric_logging.py's DiskLogger format.
 */
function torchtune(lines: readonly string[]): Omit<Partial<TrainLogFigures>, 'format'> | null {
  const alloc: number[] = [];
  const reserved: number[] = [];
  const tps: number[] = [];
  let steps = 0;
  for (const line of lines) {
    const m = /^Step \d+ \|(.*)$/.exec(line.trim());
    if (!m) continue;
    steps++;
    const kv = Object.fromEntries(
      [...m[1]!.matchAll(/([a-z_]+):([-\d.e+]+)/g)].map((x) => [x[1]!, Number(x[2])]),
    );
    if (kv.peak_memory_alloc !== undefined) alloc.push(kv.peak_memory_alloc * GiB);
    if (kv.peak_memory_reserved !== undefined) reserved.push(kv.peak_memory_reserved * GiB);
    if (kv.tokens_per_second_per_gpu !== undefined) tps.push(kv.tokens_per_second_per_gpu);
  }
  if (steps === 0) return null;
  return {
    allocatedBytes: max(alloc),
    reservedBytes: max(reserved),
    tokensPerSecondPerGpu: median(tps),
    steps,
  };
}

export const TORCHTUNE_LOG: TrainLogReader = { format: 'torchtune', order: 10, read: torchtune };
