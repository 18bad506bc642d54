/**
 * A scheduler that reserves pool tokens for its running requests' remaining output (SGLang's PrefillAdder) runs
 * fewer requests than its pool holds at the mean context. It admits a waiting request only while the free and
 * evictable pool, less every running request's remaining max_new_tokens (at most `clipTokens`) times
 * `new_token_ratio`, exceeds the request's prompt plus its whole max_new_tokens (`add_one_req`:
 * `total_tokens >= self.rem_total_tokens` is NO_TOKEN; `_get_running_request_total_token_offset`), in
 * python/sglang/srt/managers/schedule_policy.py of https://pypi.org/project/sglang/0.5.5.post1/ and 0.5.8 alike.
 * The ratio starts at SGLANG_INIT_NEW_TOKEN_RATIO and falls each decode step that needs no retraction by
 * (init - min) / SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS to init x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
 * (managers/scheduler.py `update_running_batch`; srt/environ.py).
 *
 * With the running requests spread evenly over their output (as the mean context assumes), each holds its prompt
 * plus half its output and reserves the ratio times the other half, so c run where
 * pool - (c - 1) x (prompt + out / 2 + ratio x out / 2) > prompt + out. The ratio is its mean over the decode
 * steps that serve --batch requests at the pool's plain count: a burst long past the decay steps runs near the
 * floor, a short one near the start. A retraction (the pool running dry mid-decode) raises the ratio again
 * (`retract_decode`): the step-by-step burst (time/length-spread.ts) resets it there (AdmissionReserve.retraction);
 * this closed form does not, so its count is the most the reserve admits.
 */
import { meanContextOf, outputTokensOf, promptTokensOf } from '../../schema/estimate.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { AdmissionReserve } from '../memory/layout-profiles.js';

/**
 * The reserve ratio after `steps` decode steps: its linear decay (initRatio to minRatio over decaySteps) from `from`
 * (initRatio at the run's start; a retraction's reset value after one), then the floor.
 */
export const reserveRatioAt = (r: AdmissionReserve, steps: number, from = r.initRatio): number =>
  Math.max(r.minRatio, from - ((r.initRatio - r.minRatio) * steps) / r.decaySteps);

/** The mean of reserveRatioAt over the first `steps` decode steps of a run (summed in closed form). */
export function meanReserveRatio(r: AdmissionReserve, steps: number): number {
  const n = Math.max(1, steps);
  const falling = Math.min(n, r.decaySteps);
  const decay = (r.initRatio - r.minRatio) / r.decaySteps;
  const sum = falling * r.initRatio - (decay * falling * (falling - 1)) / 2;
  return (sum + (n - falling) * r.minRatio) / n;
}

/**
 * The requests that run at once from a pool of `tokens` whose scheduler reserves `ratio` of each running request's
 * remaining output, each request `prompt` tokens in and `out` out (at least one while the pool holds a request).
 */
export function reserveAdmitted(
  tokens: number,
  prompt: number,
  out: number,
  ratio: number,
  clipTokens: number,
): number {
  const reserved = Math.min(out, clipTokens);
  const perRunning = prompt + out / 2 + (ratio * reserved) / 2;
  return Math.max(1, Math.floor((tokens - prompt - reserved) / perRunning) + 1);
}

/**
 * The sequences a serving pool of `tokens` runs at once, at most --batch: those it holds at the mean context, fewer
 * where the engine reserves for running requests' output (its profile's admission reserve).
 */
export function poolSequencesOf(tokens: number, o: EstimateOptions): number {
  const plain = Math.min(o.batch, Math.floor(tokens / meanContextOf(o)));
  const r = FRAMEWORKS[o.framework].server?.admissionReserve;
  if (r === undefined || plain < 1) return plain;
  const out = outputTokensOf(o);
  // The decode steps that serve --batch requests `plain` at a time.
  const steps = Math.ceil(o.batch / plain) * out;
  const ratio = meanReserveRatio(r, steps);
  return Math.min(plain, reserveAdmitted(tokens, promptTokensOf(o), out, ratio, r.clipTokens));
}
