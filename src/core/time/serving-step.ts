/**
 * The serving figures the planner ranks by, per data-parallel rank: a DP-attention engine's rank
 * (expert-parallel.ts), a speculative engine (speculative.ts), or the plain decode step (decode.ts).
 */
import { meanContextOf, type EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { decodeStep, servingTime } from './decode.js';
import { dpAttentionStep, dpAttentionTime, dpAttentionTimed } from './expert-parallel.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { speculates, speculativeServingTime, speculativeStep } from './speculative.js';

/** One replica's decode tokens/s per data-parallel rank. */
export function replicaTokensPerSecond(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): number {
  if (dpAttentionTimed(m, o)) return o.batch / dpAttentionStep(m, o, t, r);
  if (speculates(o)) return speculativeStep(m, o, t, r).tokensPerSecond;
  return decodeStep(m, o, t, r, false).tokensPerSecond;
}

/** A request's TTFT and TPOT. */
export function replicaServingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): { ttft: number; tpot: number } {
  if (dpAttentionTimed(m, o)) {
    const d = dpAttentionTime(m, o, t, r, o.seq, false);
    return { ttft: d.ttft, tpot: d.tpot };
  }
  if (speculates(o)) return speculativeServingTime(m, o, t, r, meanContextOf(o));
  return servingTime(m, o, t, r);
}
