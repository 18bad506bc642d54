/**
 * The serving figures the planner ranks by, per data-parallel rank: a speculative engine (speculative.ts, a
 * DP-attention rank's too), a DP-attention engine's rank (expert-parallel.ts), or the plain decode step (decode.ts).
 */
import { meanContextOf, type EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { decodeStep, servingTime } from './decode.js';
import { dpAttentionStep, dpAttentionTime, dpAttentionTimed } from './expert-parallel.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { loraStepTime } from './multi-lora.js';
import { speculates, speculativeServingTime, speculativeStep } from './speculative.js';

/** One replica's decode tokens/s per data-parallel rank. */
export function replicaTokensPerSecond(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): number {
  if (speculates(o)) return speculativeStep(m, o, t, r).tokensPerSecond;
  if (dpAttentionTimed(m, o)) return o.batch / dpAttentionStep(m, o, t, r);
  const lora = loraStepTime(m, o, r);
  const step = decodeStep(m, o, t, r, false);
  return lora ? o.batch / (step.stepSeconds + lora.seconds) : step.tokensPerSecond;
}

/** A request's TTFT and TPOT. */
export function replicaServingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): { ttft: number; tpot: number } {
  if (speculates(o)) return speculativeServingTime(m, o, t, r, meanContextOf(o));
  if (dpAttentionTimed(m, o)) {
    const d = dpAttentionTime(m, o, t, r, o.seq, false);
    return { ttft: d.ttft, tpot: d.tpot };
  }
  const sv = servingTime(m, o, t, r);
  // Multi-LoRA: every decode step (the first token's too) pays the adapters' reads and kernels.
  const lora = loraStepTime(m, o, r);
  return lora ? { ttft: sv.ttft + lora.seconds, tpot: sv.tpot + lora.seconds } : sv;
}
