/**
 * A serving engine's frontend: the host process that takes the HTTP requests (request validation, chat template,
 * tokenization, bookkeeping) and streams each request's tokens back, one chunk per token, apart from the process
 * that steps the model (FrameworkProfile.servingFrontend). The two overlap; the frontend bounds a run only where its
 * own work for the run exceeds the GPU's: a burst of many short requests, or a steady state whose decode steps
 * take less than the frontend's share of requests and tokens per step.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';

/** Frontend host seconds per request (its streamed tokens apart), or 0 where the engine has no frontend profile. */
export function frontendRequestSeconds(o: EstimateOptions, t: TimeOptions): number {
  const f = FRAMEWORKS[o.framework].servingFrontend;
  if (f === undefined) return 0;
  // The parse follows the template's source (scripts/measure/vllm_template_parse.py, two Qwen3 templates).
  const parse = f.templateParseSeconds * (t.chatTemplateParseScale ?? 1);
  return f.requestSeconds + (t.chatTemplateParse ? parse : 0);
}

/** Frontend host seconds per streamed output token of a request. */
function frontendTokenSeconds(o: EstimateOptions): number {
  return FRAMEWORKS[o.framework].servingFrontend?.tokenSeconds ?? 0;
}

/** The frontend's seconds for `requests` requests of `out` output tokens each, all of them through one process. */
export function frontendSeconds(
  o: EstimateOptions,
  t: TimeOptions,
  requests: number,
  out: number,
): number {
  return requests * (frontendRequestSeconds(o, t) + out * frontendTokenSeconds(o));
}

/**
 * The frontend's seconds per decode step at a steady concurrency of `batch` requests of `out` output tokens: each
 * step streams one token of every request, and admits batch / out new requests as finished ones leave.
 */
export function frontendStepSeconds(
  o: EstimateOptions,
  t: TimeOptions,
  batch: number,
  out: number,
): number {
  return frontendSeconds(o, t, batch / Math.max(1, out), out);
}
