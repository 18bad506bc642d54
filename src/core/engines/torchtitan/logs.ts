/** The training log lines torchtitan prints, read back by `check` (core/check/logs.ts). */
import {
  GiB,
  max,
  median,
  num,
  type TrainLogFigures,
  type TrainLogReader,
} from '../../check/readers.js';

/**
 * torchtitan's step line ("step: N  loss: ...  memory: 66.91GiB(37.51%)  tps: 10,050 ..."): memory is the
 * peak reserved memory in GiB ("reserved_bytes.all.peak" / 1024**3) and tps the tokens per second per device
 * (torchtitan/components/metrics.py, DeviceMemoryMonitor and MetricsProcessor.log, at v0.2.2 = 73a0e697 and at
 * b5bcd76c, August 2026). Every rank may print it; the largest memory and the median tps are kept. The first
 * step (compilation, warm-up) is left out of tps.
 */
function torchtitan(lines: readonly string[]): Omit<Partial<TrainLogFigures>, 'format'> | null {
  const reserved: number[] = [];
  const tps: number[] = [];
  const stepsSeen = new Set<number>();
  for (const line of lines) {
    const m = /step:\s*(\d+)\s+loss:.*?memory:\s*([\d.]+)\s*GiB.*?tps:\s*([\d,]+)/.exec(line);
    if (!m) continue;
    const step = Number(m[1]);
    stepsSeen.add(step);
    reserved.push(Number(m[2]) * GiB);
    if (step > 1) tps.push(num(m[3]!));
  }
  if (stepsSeen.size === 0) return null;
  return {
    reservedBytes: max(reserved),
    tokensPerSecondPerGpu: median(tps),
    steps: stepsSeen.size,
  };
}

export const TORCHTITAN_LOG: TrainLogReader = { format: 'torchtitan', order: 20, read: torchtitan };
