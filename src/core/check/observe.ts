/**
 * One Observed record from everything a run left: the probe's measured.json (device peaks, versions), the
 * Trainer callback's per-rank records, the training log and the servers' metrics. Per-GPU figures take the
 * largest rank (the plan is per GPU and sized for the largest). Pure.
 */
import type { Measured, RankRecord, RunPlan } from '../../schema/measured.js';
import type { Observed } from './compare.js';
import type { TrainLogFigures } from './logs.js';
import type { ServingFigures } from './prometheus.js';

export interface RunRecord {
  measured: Measured | null;
  ranks: RankRecord[];
  log: TrainLogFigures | null;
  serving: ServingFigures | null;
}

const maxOf = (xs: readonly (number | null | undefined)[]): number | null => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length ? Math.max(...v) : null;
};

export function observe(plan: RunPlan, r: RunRecord): Observed {
  const gpus = r.measured?.gpus ?? [];
  // Used memory the run added on each of its GPUs: peak minus what was in use before it started.
  const device = maxOf(gpus.map((g) => g.peakBytes - g.baselineBytes));
  const stepFromRanks = maxOf(r.ranks.map((k) => k.stepSeconds));
  const stepSeconds = stepFromRanks ?? r.log?.stepSeconds ?? null;
  // tokens/s per GPU: the engine's own counter where its log has one, else the plan's tokens per optimizer step
  // over the measured step time.
  const tps =
    r.log?.tokensPerSecondPerGpu ??
    (stepSeconds !== null ? plan.estimate.tokensPerStep / stepSeconds : null);
  const versions: Record<string, string | null> = {
    ...r.ranks.find((k) => Object.keys(k.versions).length > 0)?.versions,
    ...r.measured?.versions,
  };
  return {
    allocatedBytes: maxOf(r.ranks.map((k) => k.allocatedBytes)) ?? r.log?.allocatedBytes ?? null,
    reservedBytes: maxOf(r.ranks.map((k) => k.reservedBytes)) ?? r.log?.reservedBytes ?? null,
    deviceBytes: device !== null && device > 0 ? device : null,
    stepSeconds,
    tokensPerSecondPerGpu: tps,
    ttftSeconds: r.serving?.ttftSeconds ?? null,
    tpotSeconds: r.serving?.tpotSeconds ?? null,
    concurrency: r.serving?.concurrency ?? null,
    // Before the run, on the GPUs it used (those whose memory rose): other processes' share there.
    baselineBytes: maxOf(
      gpus.filter((g) => g.peakBytes > g.baselineBytes).map((g) => g.baselineBytes),
    ),
    gpuName: gpus[0]?.name ?? r.ranks.find((k) => k.gpuName)?.gpuName ?? null,
    versions,
    fallbacks: r.log?.fallbacks ?? [],
    exitCode: r.measured?.exitCode ?? null,
  };
}
