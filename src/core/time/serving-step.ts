/**
 * The serving figures the planner ranks by, per data-parallel rank: a speculative engine (speculative.ts, a
 * DP-attention rank's too), a DP-attention engine's rank (expert-parallel.ts), or the plain decode step (decode.ts).
 */
import { meanContextOf, outputTokensOf, type EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { decodeStep } from './decode.js';
import { servingTime } from './serving-request.js';
import { dpAttentionStep, dpAttentionTime, dpAttentionTimed } from './expert-parallel.js';
import { frontendStepSeconds } from './frontend.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { loraStepTime } from './multi-lora.js';
import {
  speculates,
  speculativeServingTime,
  speculativeStep,
  tokensPerStep,
} from './speculative.js';

/**
 * One replica's output tokens/s per data-parallel rank over a serving job: its decode rate, or the rate its
 * requests' latency allows where that is lower. By Little's law the `--batch` slots finish a request each
 * TTFT + (output - 1) x TPOT (the relation vLLM's benchmarks/serve.py reports between concurrency, E2E latency and
 * output throughput), and that latency carries every request's prefill: its own in its TTFT, its neighbours' in its
 * TPOT (serving-request.ts servingTime). The decode rate alone leaves the prefills out, which a job of long prompts
 * and short outputs spends most of its time on.
 */
export function replicaTokensPerSecond(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  lat: { ttft: number; tpot: number } = replicaServingTime(m, o, t, r),
): number {
  const decode = replicaDecodeTokensPerSecond(m, o, t, r);
  const out = outputTokensOf(o);
  const perRequest = lat.ttft + Math.max(0, out - 1) * lat.tpot;
  return perRequest > 0 ? Math.min(decode, (o.batch * out) / perRequest) : decode;
}

/** One replica's decode tokens/s per data-parallel rank (the batch at `--seq`, no prefill). */
function replicaDecodeTokensPerSecond(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): number {
  // Multi-LoRA: each step (a speculative verify, a DP-attention rank's) reads its adapters and runs their kernels.
  const lora = loraStepTime(m, o, r, o.batch, t)?.seconds ?? 0;
  if (speculates(o)) {
    const s = speculativeStep(m, o, t, r);
    return (o.batch * s.tokensPerStep) / (s.stepSeconds + lora);
  }
  if (dpAttentionTimed(m, o)) return o.batch / (dpAttentionStep(m, o, t, r) + lora);
  const step = decodeStep(m, o, t, r, false);
  const tps = lora ? o.batch / (step.stepSeconds + lora) : step.tokensPerSecond;
  // The frontend streams every token and admits the requests that replace finished ones (time/frontend.ts).
  const front = frontendStepSeconds(o, t, o.batch, outputTokensOf(o));
  return front > 0 ? Math.min(tps, o.batch / front) : tps;
}

/** A request's TTFT and TPOT. */
export function replicaServingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): { ttft: number; tpot: number } {
  // Multi-LoRA: every decode step (the first token's too) pays the adapters' reads and kernels; a speculative step
  // spreads it over the tokens it keeps.
  const lora = loraStepTime(m, o, r, o.batch, t)?.seconds ?? 0;
  const sv = servingOf(m, o, t, r);
  const perStep = speculates(o) ? tokensPerStep(o.specAcceptance ?? 0, o.specTokens ?? 0) : 1;
  const tpot = lora ? sv.tpot + lora / perStep : sv.tpot;
  // A token of each request per step through the frontend, which overlaps the step and bounds it where its own
  // work per step is longer (time/frontend.ts).
  const front = frontendStepSeconds(o, t, o.batch, outputTokensOf(o));
  return { ttft: sv.ttft + lora, tpot: Math.max(tpot, front) };
}

function servingOf(
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
  return servingTime(m, o, t, r);
}
