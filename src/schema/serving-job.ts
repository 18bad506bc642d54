/**
 * A serving job's `outputTokens` is the whole job's output (every request together), not one request's. A
 * figure below one round of requests (concurrency × the tokens each request generates: context less its
 * prompt, as the planner times them) is what a user who meant "per request" writes: say so, with both readings.
 */
import { promptTokensOf } from './estimate.js';
import type { InferenceJob } from './scenario.js';

/** Tokens one request generates: its context less its prompt (the planner's split, promptTokensOf). */
export const generatedPerRequest = (job: InferenceJob): number =>
  job.context - promptTokensOf({ seq: job.context, promptTokens: job.promptTokens });

/** The warning for an `outputTokens` smaller than one round of requests, or null. */
export function outputTokensWarning(job: InferenceJob): string | null {
  const perRequest = generatedPerRequest(job);
  const round = job.concurrency * perRequest;
  if (job.outputTokens >= round) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    `job.outputTokens is ${n(job.outputTokens)}, the output of the whole job (all requests together), ` +
    `less than one round of requests (concurrency ${n(job.concurrency)} × ${n(perRequest)} tokens each = ${n(round)}); ` +
    `time and cost are for ${n(job.outputTokens)} tokens in all. For ${n(job.outputTokens)} tokens per request, ` +
    `set job.context to promptTokens + ${n(job.outputTokens)} and job.outputTokens to the job's total`
  );
}
