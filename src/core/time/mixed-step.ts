/**
 * A decode step that also holds a prompt chunk, on an engine whose decode-only steps replay one full CUDA graph but
 * whose mixed prefill-decode steps replay piecewise graphs (FrameworkProfile.mixedStepsPiecewise: vLLM V1's default
 * FULL_AND_PIECEWISE). Such a step runs the piecewise path (time/piecewise.ts): the host issues each layer's attention
 * op from Python between the pieces' graph launches and the GPU idles at each split, so on a small model, whose GPU
 * step is shorter than that host work, a neighbour's prefill costs the decoders the piecewise step's host time and not
 * only the chunk's GPU work. A step of more tokens than the largest captured size replays no graph at all
 * (CudagraphDispatcher.dispatch returns NONE past max_cudagraph_capture_size): it keeps its existing price here.
 * Builds that run piecewise graphs on every step (TimeOptions.piecewiseGraphs), vLLM's V0 engine, --enforce-eager
 * (graph_max_batch 0) and a timing of the forward alone (decodeOnly) are priced as before.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { decodeStep } from './decode.js';

/**
 * The time options a step of `tokens` scheduled tokens (its decodes and the chunk) runs under where the engine replays
 * piecewise graphs for it; undefined where it is priced as a plain decode step.
 */
export function mixedStepTime(
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  tokens: number,
): TimeOptions | undefined {
  const fw = FRAMEWORKS[o.framework];
  if (fw.mixedStepsPiecewise !== true || fw.piecewiseAttentionCalls === undefined) return undefined;
  if (t.piecewiseGraphs === true || t.v0Scheduler === true || t.graphMaxBatch === 0)
    return undefined;
  if (t.decodeOnly === true) return undefined;
  const cap =
    t.graphMaxBatch ??
    (r.capacityBytes === undefined ? undefined : fw.graphMaxBatch?.(r.capacityBytes, o.tp, o.pp));
  if (cap !== undefined && tokens > cap) return undefined;
  return { ...t, piecewiseGraphs: true };
}

/**
 * Seconds a decode step of `o.batch` sequences at context `ctx` lasts beyond its plain price when it also holds a
 * prompt chunk of `chunk` tokens (mixedStepTime): the piecewise step less the full-graph one; 0 where the engine
 * prices the two alike. Never negative.
 */
export function mixedStepExtraSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx: number,
  chunk: number,
): number {
  const mixed = mixedStepTime(o, t, r, o.batch + chunk);
  if (mixed === undefined) return 0;
  const plain = decodeStep(m, o, t, r, false, ctx).stepSeconds;
  return Math.max(0, decodeStep(m, o, mixed, r, false, ctx).stepSeconds - plain);
}
