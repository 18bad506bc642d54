/**
 * Service levels of serving plans: when no layout meets job.slo, the nearest plan's TTFT/TPOT and
 * the largest concurrency that meets the SLO on its configuration; and a replica's capacity at the SLO (the
 * requests per second one replica completes), which the fleet MIP divides the scenario's demand by.
 */
import type { Arch } from '../model/arch.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Engine } from '../../schema/engine.js';
import {
  outputTokensOf,
  type EstimateOptions,
  type KvCacheDtype,
  type WeightDtype,
} from '../../schema/estimate.js';
import type { TimeOptions } from '../time/index.js';
import { buildEstimate } from '../estimate.js';

export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
}

/** The plan nearest to the SLO when none meets it (the search's smallest 'slo' miss). */
export interface SloNearest {
  gpuId: string;
  gpus: number;
  engine: Engine;
  weights: WeightDtype;
  kvCacheDtype: KvCacheDtype;
  tp: number;
  pp: number;
  /** The scenario's concurrency (over all replicas) and the plan's times per request at it (each replica's share). */
  concurrency: number;
  ttftSeconds: number;
  tpotSeconds: number;
  /** Largest concurrency (over all replicas) on the same configuration whose TTFT and TPOT meet the SLO (0: not even one). */
  maxConcurrency: number;
  /** Times per request at maxConcurrency (null when 0). */
  ttftSecondsAtMax: number | null;
  tpotSecondsAtMax: number | null;
  /** The SLO it was checked against. */
  slo: Slo;
}

interface Times {
  ttft: number;
  tpot: number;
}

export const meetsSlo = (t: Times, slo: Slo): boolean =>
  (slo.ttftMs === undefined || t.ttft * 1000 <= slo.ttftMs) &&
  (slo.tpotMs === undefined || t.tpot * 1000 <= slo.tpotMs);

/**
 * Largest concurrency ≤ o.batch meeting the SLO: TTFT (prefill + one decode step of the batch) and TPOT
 * (a decode step plus the batch's share of prefills) both grow with the batch, so a bisection finds it.
 */
export function maxConcurrencyAtSlo(at: (batch: number) => Times, batch: number, slo: Slo): number {
  if (meetsSlo(at(batch), slo)) return batch;
  if (!meetsSlo(at(1), slo)) return 0;
  let lo = 1;
  let hi = batch;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (meetsSlo(at(mid), slo)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The nearest plan's figures and the concurrency search downward on its configuration. */
export function sloNearestOf(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  slo: Slo,
  engine: Engine,
): SloNearest {
  const at = (batch: number): Times => {
    // As `estimate` times it: a KV pool that holds fewer sequences than the batch queues the rest (pool-queue.ts).
    const r = buildEstimate(arch, { ...o, batch }, gpu, t, undefined, { burst: false }).time!;
    return { ttft: r.ttftSeconds ?? 0, tpot: r.tpotSeconds ?? 0 };
  };
  const now = at(o.batch);
  const max = maxConcurrencyAtSlo(at, o.batch, slo);
  const atMax = max > 0 ? at(max) : null;
  // Each of the layout's replicas serves o.batch of the concurrency (replicas.ts): the job's figures are dp x.
  const dp = Math.max(1, Math.floor(o.gpus / (o.tp * o.pp)));
  return {
    gpuId: gpu.id,
    gpus: o.gpus,
    engine,
    weights: o.weights,
    kvCacheDtype: o.kvCacheDtype ?? 'auto',
    tp: o.tp,
    pp: o.pp,
    concurrency: o.batch * dp,
    ttftSeconds: now.ttft,
    tpotSeconds: now.tpot,
    maxConcurrency: max * dp,
    ttftSecondsAtMax: atMax?.ttft ?? null,
    tpotSecondsAtMax: atMax?.tpot ?? null,
    slo: { ...slo },
  };
}

/**
 * Requests per second one replica completes at its concurrency: each of its `batch` requests takes TTFT +
 * output × TPOT (Little's law: throughput = concurrency / latency).
 */
export function replicaRequestsPerSecond(o: EstimateOptions, ttft: number, tpot: number): number {
  const out = outputTokensOf(o);
  return o.batch / (ttft + out * tpot);
}
