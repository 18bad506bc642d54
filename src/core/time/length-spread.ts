/**
 * A burst whose requests' lengths are spread as a dataset spreads them, not all at the mean. `vllm bench serve`
 * and `sglang.bench_serving` with `--dataset-name sharegpt` give each request the prompt and output length of one
 * conversation (vllm-project/vllm benchmarks/benchmark_dataset.py `ShareGPTDataset.sample`; sglang 0.5.8
 * bench_serving.py `sample_sharegpt_requests`; catalogs/datasets/sharegpt.json holds the percentiles after each
 * sampler's filter). Two things the mean hides:
 * - the engine admits by the requests' actual lengths: vLLM admits a waiting request while the KV pool has blocks
 *   for its prompt and, when the running requests' next tokens find no block, preempts the last one it admitted and
 *   puts it back at the head of the queue, its output kept and its prompt and output prefilled again when it is
 *   admitted again (`Scheduler.schedule`: `self.running.pop()`, `self.waiting.prepend_request`;
 *   vllm-project/vllm@b4622cf vllm/v1/core/sched/scheduler.py); an engine that reserves pool for its running
 *   requests' remaining output (SGLang's PrefillAdder, time/admission-reserve.ts) also admits a request only while
 *   its prompt and whole output fit beside that reserve;
 * - the run ends when the last request finishes: the last long requests decode at a small batch after the queue
 *   has emptied, each step still reading the weights.
 * The burst is run step by step over `batch` requests drawn at the distribution's quantiles in fixed shuffled
 * orders, at most `slots` running, each decode step timed at the batch that runs it.
 */
import type { Arch } from '../model/arch.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { AdmissionReserve } from '../memory/layout-profiles.js';
import type { Gpu } from '../../schema/gpu.js';
import {
  freshPromptTokens,
  outputTokensOf,
  promptTokensOf,
  type EstimateOptions,
} from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { decodeStep, decodeTraffic, prefillTime } from './decode.js';
import { frontendSeconds } from './frontend.js';
import { mixedStepExtraSeconds, mixedStepTime } from './mixed-step.js';
import { gpuRates } from './hardware.js';
import { reserveRatioAt } from './admission-reserve.js';
import { modelFacts, servedArch, type ModelFacts } from './model-facts.js';

/** Prompt and output tokens at rising percent levels (a sampler of catalogs/datasets/<id>.json). */
export interface LengthShape {
  levels: readonly number[];
  prompt: readonly number[];
  output: readonly number[];
}

export interface SpreadRequest {
  prompt: number;
  output: number;
  /** Seconds from the first send to this request's (absent: 0, a burst sent at once). */
  arrival?: number;
}

/** The value at quantile u (0..1) of a table at percent levels, linear between levels, flat past the last. */
export function quantileAt(
  levels: readonly number[],
  values: readonly number[],
  u: number,
): number {
  const p = u * 100;
  if (p <= levels[0]!) return values[0]!;
  for (let i = 1; i < levels.length; i++) {
    if (p <= levels[i]!) {
      const f = (p - levels[i - 1]!) / (levels[i]! - levels[i - 1]!);
      return values[i - 1]! + f * (values[i]! - values[i - 1]!);
    }
  }
  return values[values.length - 1]!;
}

/** A seeded pseudo-random stream in [0, 1) (mulberry32): a fixed shuffle, the same on every run. */
function stream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** The strata 0..n-1 in the order of a Fisher-Yates shuffle from `next`, as the benchmarks shuffle the dataset. */
function shuffled(n: number, next: () => number): number[] {
  const out = Array.from({ length: n }, (_, j) => j);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * `batch` requests whose lengths are the shape's quantiles at (j + 0.5) / batch, scaled to the given means (the
 * row's own totals), `spread` of the way from the mean (0: every request at the mean; 1: the dataset's spread), in
 * the order of shuffle `seed`. Prompt and output strata are shuffled apart: the catalog gives two marginals (their
 * correlation is -0.27 under vLLM's sampler, -0.02 under SGLang's: catalogs/datasets/sharegpt.json), taken as
 * independent (assumed).
 */
export function spreadRequests(
  shape: LengthShape,
  batch: number,
  meanPrompt: number,
  meanOutput: number,
  spread = 1,
  seed = 1,
): SpreadRequest[] {
  const next = stream(seed);
  const draw = (values: readonly number[], mean: number): number[] => {
    const raw = shuffled(batch, next).map((j) =>
      quantileAt(shape.levels, values, (j + 0.5) / batch),
    );
    const rawMean = raw.reduce((a, b) => a + b, 0) / batch;
    return raw.map((x) => mean + spread * ((x * mean) / rawMean - mean));
  };
  const prompts = draw(shape.prompt, meanPrompt);
  const outputs = draw(shape.output, meanOutput);
  return prompts.map((p, k) => ({
    prompt: Math.max(1, p),
    output: Math.max(1, Math.round(outputs[k]!)),
  }));
}

/** What the step-by-step burst needs of the engine. */
export interface SpreadEngine {
  /** The most sequences it runs at once (max_num_seqs, or the burst). */
  slots: number;
  /** Tokens its KV pool holds. */
  poolTokens: number;
  /** Its reserve for running requests' remaining output, where it keeps one. */
  reserve?: AdmissionReserve;
  /** A decode step with `running` sequences holding `contextTokens` of KV between them. */
  stepSeconds: (running: number, contextTokens: number) => number;
  /**
   * A decode step that also prefills `tokens` prompt tokens, where the engine prices it apart from a plain one
   * (time/mixed-step.ts; absent: stepSeconds).
   */
  mixedStepSeconds?: (running: number, contextTokens: number, tokens: number) => number;
  /** Prefill per prompt token (a request admitted again prefills its prompt and its output so far). */
  prefillSecondsPerToken: number;
  /**
   * A prefill step that runs alone (`prefillAlone`) of `tokens` prompt tokens: a forward of its own, its weight read
   * and launches whole (absent: the tokens at prefillSecondsPerToken).
   */
  prefillStepSeconds?: (tokens: number) => number;
  /**
   * Tokens a step schedules (vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size: the profile's
   * server.sizing chunkTokens); undefined: every admitted prompt is prefilled in the step that admits it.
   */
  budgetTokens?: number;
  /**
   * A step that prefills runs no decode (the profile's server.prefillFirst: SGLang); else the running requests'
   * decode tokens share the step and its budget with the prefill chunks (vLLM V1).
   */
  prefillAlone?: boolean;
  /**
   * The share of each prompt found in the prefix cache (EstimateOptions.prefixCacheFraction; absent: none): an
   * admitted request prefills only the rest, at least one token, as servingTime's prompt does. Its cached blocks
   * still hold pool tokens.
   */
  cachedShare?: number;
}

export interface SpreadBurst {
  seconds: number;
  steps: number;
  preemptions: number;
  /** Sequences running, averaged over the decode steps. */
  meanRunning: number;
  /** The most sequences running in one step. */
  peakRunning: number;
  /** Tokens prefilled: every prompt, and what the preempted requests prefilled again. */
  prefilledTokens: number;
  /**
   * Seconds from each request's own send to its first token (the end of the step that ends its first prefill): sum,
   * max.
   */
  ttftSumSeconds: number;
  ttftMaxSeconds: number;
  /**
   * Each request's time a token after its first, (its last token - its first) / (output - 1), as `vllm bench serve`
   * reports its mean TPOT (benchmarks/serve.py `calculate_metrics`: requests of one output token count none): the
   * sum, and the requests summed.
   */
  tpotSumSeconds: number;
  tpotRequests: number;
}

interface Live {
  prompt: number;
  output: number;
  done: number;
  /** Prompt (and, after a preemption, output) tokens still to prefill before it decodes again. */
  pending: number;
  /** The step whose prefill ended it (its first token comes with that step). */
  endedAt: number;
  /** Seconds from the first send to its first token (-1 before it). */
  firstAt: number;
  /** Seconds from the first send to its own send (absent: 0). */
  arrival?: number;
}

/**
 * The burst run step by step: admissions in order, preemptions of the last admitted, one step a loop. Where the
 * engine has a token budget a step, it is spent as vLLM V1's `Scheduler.schedule` spends it
 * (vllm-project/vllm@b4622cf924bc72504aed99e486062d6633fde39e vllm/v1/core/sched/scheduler.py): the running requests
 * first, a decoding one one token, a prefilling one its next chunk of what is left of its prompt; then waiting requests
 * in order while the budget lasts (chunked prefill: the last admitted may take only part of its prompt and finish it
 * in later steps). A request decodes from the step that ends its prefill, which also samples its first token. So a
 * burst's first wave starts over several steps, as the budget admits it, not all in the first. An engine whose
 * prefill runs alone (`prefillAlone`) gives the prefill the whole budget and advances no decode in that step.
 */
export function spreadBurst(requests: readonly SpreadRequest[], e: SpreadEngine): SpreadBurst {
  const s: BurstState = {
    queue: requests.map((r) => ({ ...r, done: 0, pending: r.prompt, endedAt: -1, firstAt: -1 })),
    front: [], // preempted requests, the last pushed first back in
    head: 0,
    running: [],
    used: 0,
    seconds: 0,
    steps: 0,
    preemptions: 0,
    runningSteps: 0,
    peakRunning: 0,
    prefilledTokens: 0,
    ttftSumSeconds: 0,
    ttftMaxSeconds: 0,
    tpotSumSeconds: 0,
    tpotRequests: 0,
    ratioSince: 0,
  };
  const budgetOf = e.budgetTokens ?? Infinity;
  const alone0 = e.prefillAlone === true;
  while (s.head < s.queue.length || s.front.length > 0 || s.running.length > 0) {
    // Nothing runs and the next request is not sent yet: the engine idles until it arrives.
    if (s.running.length === 0 && nextOf(s) === undefined) s.seconds = sentOf(s.queue[s.head]!);
    if (skipDecodes(s, e, budgetOf)) continue;
    admit(s, e, budgetOf - (alone0 ? 0 : decodingNow(s.running)));
    // This step's prefill: each prefilling request's chunk, in admission order, out of what the decodes leave.
    const wasDecoding = decodingNow(s.running);
    s.peakRunning = Math.max(s.peakRunning, s.running.length);
    let room = budgetOf - (alone0 ? 0 : wasDecoding);
    let prefilled = 0;
    let ended = 0;
    for (const r of s.running) {
      if (r.pending === 0) continue;
      const take = Math.min(r.pending, Math.max(0, room));
      r.pending -= take;
      room -= take;
      prefilled += take;
      // Its first token comes with this step, even where the prefill runs alone.
      if (r.pending === 0) {
        r.endedAt = s.steps;
        ended++;
      }
    }
    // The step's tokens: one for each request whose prefill ended in it (its first, sampled from the prefill's own
    // forward), and one for each decoding request unless the prefill ran alone (that decode step is priced whole
    // beside the step's chunk, its weight read included).
    const alone = alone0 && prefilled > 0;
    s.seconds +=
      alone && e.prefillStepSeconds !== undefined
        ? e.prefillStepSeconds(prefilled)
        : e.prefillSecondsPerToken * prefilled;
    s.prefilledTokens += prefilled;
    if (!alone && wasDecoding > 0)
      s.seconds +=
        prefilled > 0 && e.mixedStepSeconds !== undefined
          ? e.mixedStepSeconds(wasDecoding, s.used, prefilled)
          : e.stepSeconds(wasDecoding, s.used);
    const produced = alone ? ended : wasDecoding + ended;
    s.runningSteps += produced;
    s.used += produced;
    endStep(s, alone);
  }
  return {
    seconds: s.seconds,
    steps: s.steps,
    preemptions: s.preemptions,
    meanRunning: s.steps > 0 ? s.runningSteps / s.steps : 0,
    peakRunning: s.peakRunning,
    prefilledTokens: s.prefilledTokens,
    ttftSumSeconds: s.ttftSumSeconds,
    ttftMaxSeconds: s.ttftMaxSeconds,
    tpotSumSeconds: s.tpotSumSeconds,
    tpotRequests: s.tpotRequests,
  };
}

/** A stepped burst as it runs: the waiting queue, the preempted, the running, the pool's tokens and the sums. */
interface BurstState {
  queue: Live[];
  front: Live[];
  head: number;
  running: Live[];
  used: number;
  seconds: number;
  steps: number;
  preemptions: number;
  runningSteps: number;
  peakRunning: number;
  prefilledTokens: number;
  ttftSumSeconds: number;
  ttftMaxSeconds: number;
  tpotSumSeconds: number;
  tpotRequests: number;
  /** The reserve ratio the last retraction set (absent: none yet) and the step it set it at. */
  ratioFrom?: number;
  ratioSince: number;
}

/**
 * The next request to admit: the last preempted first, then the queue in order, once it has arrived (a scheduler
 * admits at a step's start what has reached it; a request sent during a step waits for the next).
 */
function nextOf(s: BurstState): Live | undefined {
  const back = s.front[s.front.length - 1];
  if (back !== undefined) return back;
  const r = s.queue[s.head];
  return r !== undefined && sentOf(r) <= s.seconds ? r : undefined;
}

/** Seconds from the first send to a request's own. */
const sentOf = (r: Live): number => r.arrival ?? 0;

/** When the next queued request not yet sent arrives (Infinity: none waits to be sent). */
function nextArrival(s: BurstState): number {
  const r = s.front.length === 0 ? s.queue[s.head] : undefined;
  return r !== undefined && sentOf(r) > s.seconds ? sentOf(r) : Infinity;
}

/** Requests whose prefill is done, among the running ones (a count: the loop runs thousands of steps). */
function decodingNow(running: readonly Live[]): number {
  let n = 0;
  for (const r of running) if (r.pending === 0) n++;
  return n;
}

/** Tokens a request is expected to add before it ends, as the engine's admission reserve counts them (1 without one). */
const leftOf = (e: SpreadEngine, r: Live): number =>
  e.reserve === undefined ? 1 : Math.min(r.output - r.done, e.reserve.clipTokens);

/**
 * Steps that only decode, until the next request finishes or the pool fills: the same sums, one step at a time,
 * without a pass over the running requests each (a burst of thousands decodes thousands of steps). True where it ran
 * any.
 */
function skipDecodes(s: BurstState, e: SpreadEngine, budgetOf: number): boolean {
  const skip = decodeOnlySteps(s.running, nextOf(s), e, s.used, budgetOf);
  if (skip <= 0) return false;
  const n = s.running.length;
  // Only until the next request is sent: the step after its arrival may admit it.
  const until = nextArrival(s);
  let j = 0;
  for (; j < skip && !(s.used + n > e.poolTokens && n > 1) && s.seconds < until; j++) {
    s.seconds += e.stepSeconds(n, s.used);
    s.runningSteps += n;
    s.used += n;
    s.steps++;
  }
  for (const r of s.running) r.done += j;
  return j > 0;
}

/**
 * The running requests take the budget first (a token each decoding, their next chunk each prefilling), then waiting
 * requests are admitted in order while the budget, the slots and the pool (with the engine's reserve) allow; each
 * decoding sequence then writes one more token, and where they no longer fit, the last admitted leaves (preemption by
 * recompute: its prompt and output are prefilled again).
 */
function admit(s: BurstState, e: SpreadEngine, budget: number): void {
  const ratio = reserveRatioOf(s, e);
  let reserved = 0;
  if (e.reserve !== undefined) for (const r of s.running) reserved += ratio * leftOf(e, r);
  for (const r of s.running) if (r.pending > 0) budget -= Math.min(r.pending, Math.max(0, budget));
  for (
    let r = nextOf(s);
    r !== undefined && s.running.length < e.slots && budget > 0;
    r = nextOf(s)
  ) {
    const held = r.prompt + r.done;
    if (s.running.length > 0 && s.used + reserved + held + leftOf(e, r) > e.poolTokens) break;
    if (s.front.length > 0) s.front.pop();
    else s.head++;
    s.running.push(r);
    s.used += held;
    reserved += ratio * leftOf(e, r);
    r.pending = held - cachedOf(e, r);
    budget -= r.pending;
  }
  retract(s, e);
}

/** Prompt tokens of `r` its admission finds in the prefix cache: all but its fresh tokens (freshPromptTokens). */
const cachedOf = (e: SpreadEngine, r: Live): number =>
  e.cachedShare === undefined ? 0 : r.prompt - freshPromptTokens(r.prompt, e.cachedShare);

/**
 * Where the running requests' next tokens no longer fit the pool, the last admitted leave (preemption by recompute:
 * their prompt and output are prefilled again), back at the head of the queue, or at its end where the engine's
 * reserve says so (AdmissionReserve.retraction, which also resets the reserve's ratio).
 */
function retract(s: BurstState, e: SpreadEngine): void {
  const how = e.reserve?.retraction;
  let left = 0;
  while (s.used + s.running.length > e.poolTokens && s.running.length > 1) {
    const r = s.running.pop()!;
    s.used -= r.prompt + r.done;
    r.pending = r.prompt + r.done;
    if (how?.requeue === 'back') s.queue.push(r);
    else s.front.push(r);
    s.preemptions++;
    left++;
  }
  if (left === 0 || how === undefined) return;
  let decoded = 0;
  let wanted = 0;
  for (const r of s.running) {
    decoded += r.done;
    wanted += r.output;
  }
  s.ratioFrom = Math.min(1, (decoded + how.aheadSteps * s.running.length) / (wanted + 1));
  s.ratioSince = s.steps;
}

/**
 * The engine's reserve ratio this step (0 without a reserve): its decay from the start, or from the value the last
 * retraction set (AdmissionReserve.retraction), down to the floor.
 */
function reserveRatioOf(s: BurstState, e: SpreadEngine): number {
  const r = e.reserve;
  if (r === undefined) return 0;
  if (s.ratioFrom === undefined) return reserveRatioAt(r, s.steps);
  return reserveRatioAt(r, s.steps - s.ratioSince, s.ratioFrom);
}

/** The step's end: each request that produced a token counts it (its first sets the TTFT sums); the finished leave. */
function endStep(s: BurstState, alone: boolean): void {
  let finished = 0;
  for (const r of s.running) {
    if (r.pending !== 0 || (alone && r.endedAt !== s.steps)) continue;
    // Its first token: a prefill that ended in this step before any output (a preempted one has output already).
    if (r.done === 0) {
      r.firstAt = s.seconds;
      s.ttftSumSeconds += s.seconds - sentOf(r);
      s.ttftMaxSeconds = Math.max(s.ttftMaxSeconds, s.seconds - sentOf(r));
    }
    r.done++;
    if (r.done >= r.output) {
      if (r.output > 1) {
        s.tpotSumSeconds += (s.seconds - r.firstAt) / (r.output - 1);
        s.tpotRequests++;
      }
      s.used -= r.prompt + r.done;
      finished++;
    }
  }
  s.steps++;
  if (finished > 0) s.running = s.running.filter((r) => r.done < r.output);
}

/**
 * How many steps from here only decode, each like the last (0: the next step may prefill, admit or finish a
 * request): every running request decoding, none finishing before the last of them, and no waiting request that
 * can start (none waits, the slots are full, or, without an output reserve, the budget or the pool leaves it no room:
 * the pool only fills while the batch decodes). The pool's preemption is checked step by step by the caller.
 */
function decodeOnlySteps(
  running: readonly Live[],
  waiting: Live | undefined,
  e: SpreadEngine,
  used: number,
  budgetOf: number,
): number {
  const n = running.length;
  if (n === 0) return 0;
  if (waiting !== undefined && n < e.slots) {
    if (e.reserve !== undefined) return 0;
    const budget = budgetOf - (e.prefillAlone === true ? 0 : n);
    if (budget > 0 && used + waiting.prompt + waiting.done + 1 <= e.poolTokens) return 0;
  }
  let minLeft = Infinity;
  for (const r of running) {
    if (r.pending > 0) return 0;
    minLeft = Math.min(minLeft, r.output - r.done);
  }
  return minLeft - 1;
}

/**
 * Where the longest requests fall in the queue moves a burst's end (a request of 1,400 tokens sent last decodes
 * alone after the rest): the burst is averaged over this many fixed shuffles, as over runs of differently seeded
 * benchmarks. 8: the spread of a single shuffle's figure (about 5-12% on the ShareGPT bursts of 1000) then counts
 * for about a third of that (1 / sqrt(8)).
 */
const SHUFFLES = 8;

/**
 * The burst of `batch` requests spread `spread` of the way from the means to `shape`'s lengths (the mean over
 * SHUFFLES orders), never shorter than the same burst at the means. Run step by step, a slightly wider spread can
 * finish a few steps sooner than the mean's: requests of one length fill the pool in step and preempt together, and
 * a ragged last wave packs differently (list scheduling's anomaly; 1-2% at 500 requests on 16 slots and a tenth of
 * ShareGPT's spread). The spread's own cost is what this adds to the mean's. `requestRate`: the requests are sent
 * one after another at that many a second (sentAt); Infinity, all at once.
 */
export function spreadBurstSeconds(
  shape: LengthShape,
  batch: number,
  meanPrompt: number,
  meanOutput: number,
  e: SpreadEngine,
  spread = 1,
  requestRate = Infinity,
): { seconds: number; burst: SpreadBurst; atMean: SpreadBurst } {
  const draw = (sp: number, seed: number): SpreadRequest[] =>
    sentAt(spreadRequests(shape, batch, meanPrompt, meanOutput, sp, seed), requestRate);
  const atMean = spreadBurst(draw(0, 1), e);
  if (spread === 0) return { seconds: atMean.seconds, burst: atMean, atMean };
  const runs = Array.from({ length: SHUFFLES }, (_, i) => spreadBurst(draw(spread, i + 1), e));
  const avg = (f: (b: SpreadBurst) => number): number =>
    runs.reduce((a, b) => a + f(b), 0) / SHUFFLES;
  const burst: SpreadBurst = {
    seconds: avg((b) => b.seconds),
    steps: avg((b) => b.steps),
    preemptions: avg((b) => b.preemptions),
    meanRunning: avg((b) => b.meanRunning),
    peakRunning: Math.max(...runs.map((b) => b.peakRunning)),
    prefilledTokens: avg((b) => b.prefilledTokens),
    ttftSumSeconds: avg((b) => b.ttftSumSeconds),
    ttftMaxSeconds: avg((b) => b.ttftMaxSeconds),
    tpotSumSeconds: avg((b) => b.tpotSumSeconds),
    tpotRequests: avg((b) => b.tpotRequests),
  };
  return { seconds: Math.max(burst.seconds, atMean.seconds), burst, atMean };
}

/**
 * Requests sent at `rate` a second: request i (0-based, in the queue's order) at i / rate seconds after the first, the
 * expected send time of the benchmarks' clients, which send a request and then sleep a random interval of mean 1 / rate
 * before the next (vllm-project/vllm@0049e29c41fd383bda519a3f250e3227713081ef benchmarks/benchmark_serving.py
 * `get_request`: `np.random.gamma(shape=burstiness, scale=1 / (rate * burstiness))`;
 * sgl-project/sglang@0033168f0f58b2bc05aa0273bd475d9c01bafb1c python/sglang/bench_serving.py `get_request`:
 * `np.random.exponential(1.0 / request_rate)`). The intervals are taken at their mean, not drawn (docs/assumptions.md).
 * Infinity: the requests unchanged (all sent at once).
 */
export function sentAt(requests: SpreadRequest[], rate: number): SpreadRequest[] {
  if (!Number.isFinite(rate)) return requests;
  return requests.map((r, i) => ({ ...r, arrival: i / rate }));
}

/** The context a decode step is timed at, rounded to this many tokens (a step's cost moves little within it). */
const CTX_GRAIN = 16;

/**
 * A served burst of --batch requests whose lengths follow `shape` (scaled to the row's mean prompt and output),
 * run at most `slots` at once on a pool of `poolTokens`, as `spreadBurst` runs it: each decode step the one of the
 * batch that runs it at the running sequences' mean context, a prompt token's prefill that of a wave of `wave` mean
 * prompts (the static batch's, time/serving-request.ts staticBatchSeconds), at most `budgetTokens` scheduled a step
 * where given, sent at `t.requestRate` a second where the run set one (sentAt). The frontend bounds it from below as it
 * does a static batch (time/frontend.ts).
 */
export function spreadBatchSeconds(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  shape: LengthShape,
  run: { slots: number; poolTokens: number; wave: number; budgetTokens?: number },
  spread = 1,
): { seconds: number; burst: SpreadBurst; atMean: SpreadBurst } {
  const arch = servedArch(model, o);
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t, true);
  const prompt = promptTokensOf(o);
  const out = outputTokensOf(o);
  const { alone, budgetTokens } = stepPolicy(arch, o, t, run.budgetTokens);
  // A step prefills at most the budget's tokens (one prompt where the prompt is longer, in chunks whose attention
  // spans the prompt so far: the whole prompt's causal attention) and at most the wave's prompts, so its GEMMs run
  // at those rows, not at a whole wave's (time/burst.ts burstPrefill prices a chunk the same way).
  const seqs =
    budgetTokens === undefined
      ? run.wave
      : Math.min(run.wave, Math.max(budgetTokens, prompt) / prompt);
  const wave = { ...o, batch: Math.max(1, Math.round(seqs)) };
  const tr = decodeTraffic(m, wave, t, r, wave.batch, prompt);
  const prefillSecondsPerToken = prefillTime(m, wave, r, tr, prompt, seqs, t) / (seqs * prompt);
  // The step reads the running sequences' own KV: its attention at their mean context, to CTX_GRAIN tokens.
  const memo = new Map<number, number>();
  const stepSeconds = (n: number, contextTokens: number): number => {
    const b = Math.max(1, n);
    const grain = Math.max(1, Math.round(contextTokens / b / CTX_GRAIN));
    const key = b * 1e6 + grain;
    let s = memo.get(key);
    if (s === undefined) {
      s = decodeStep(m, { ...o, batch: b }, t, r, false, grain * CTX_GRAIN).stepSeconds;
      memo.set(key, s);
    }
    return s;
  };
  // A step that also prefills: the plain step and, where it replays piecewise graphs instead, their difference.
  const mixedMemo = new Map<number, number>();
  const mixedStepSeconds = (n: number, contextTokens: number, tokens: number): number => {
    const b = Math.max(1, n);
    const plain = stepSeconds(n, contextTokens);
    // mixedStepTime reads the engine and layout only (not the batch), so the run's own options serve.
    if (mixedStepTime(o, t, r, b + tokens) === undefined) return plain;
    const grain = Math.max(1, Math.round(contextTokens / b / CTX_GRAIN));
    const key = b * 1e6 + grain;
    let extra = mixedMemo.get(key);
    if (extra === undefined) {
      extra = mixedStepExtraSeconds(m, { ...o, batch: b }, t, r, grain * CTX_GRAIN, 0);
      mixedMemo.set(key, extra);
    }
    return plain + extra;
  };
  const reserve = FRAMEWORKS[o.framework].server?.admissionReserve;
  const engine: SpreadEngine = {
    slots: run.slots,
    poolTokens: run.poolTokens,
    ...(reserve === undefined ? {} : { reserve }),
    ...(budgetTokens === undefined ? {} : { budgetTokens }),
    ...(alone
      ? {
          prefillAlone: true,
          prefillStepSeconds: prefillStepPricer(m, o, t, r, prompt, prefillSecondsPerToken),
        }
      : {}),
    stepSeconds,
    ...(mixedStepTime(o, t, r, 1) === undefined ? {} : { mixedStepSeconds }),
    prefillSecondsPerToken,
    ...(o.prefixCacheFraction === undefined ? {} : { cachedShare: o.prefixCacheFraction }),
  };
  const b = spreadBurstSeconds(shape, o.batch, prompt, out, engine, spread, t.requestRate);
  return { ...b, seconds: Math.max(b.seconds, frontendSeconds(o, t, o.batch, out)) };
}

/**
 * How the engine's steps take a burst's prefills: alone (no decode beside them) or in the decodes' step, and the
 * step's token budget. vLLM's V0 engine without chunked prefill (TimeOptions.v0Scheduler, not v0ChunkedPrefill) steps
 * by its profile's `v0Scheduler` at the run's max_model_len, the model's own positions where the run set none;
 * otherwise the profile's server (`prefillFirst`) and the run's budget (`budgetTokens`).
 */
export function stepPolicy(
  arch: Arch,
  o: EstimateOptions,
  t: TimeOptions,
  budgetTokens: number | undefined,
): { alone: boolean; budgetTokens?: number } {
  const v0 =
    t.v0Scheduler === true && t.v0ChunkedPrefill !== true
      ? FRAMEWORKS[o.framework].v0Scheduler
      : undefined;
  if (v0 !== undefined)
    return {
      alone: v0.prefillFirst,
      budgetTokens: v0.batchedTokens(t.maxModelLen ?? arch.maxPositions),
    };
  return {
    alone: FRAMEWORKS[o.framework].server?.prefillFirst === true,
    ...(budgetTokens === undefined ? {} : { budgetTokens }),
  };
}

/** A lone prefill step is priced at multiples of this many tokens, linear between (its cost moves little within one). */
const PREFILL_STEP_GRAIN = 32;

/**
 * The price of a prefill step that runs alone, by its tokens. An engine whose scheduler runs its prefill batch alone
 * (the profile's server.prefillFirst: SGLang's `get_next_batch_to_run`, "Run prefill first if possible", with
 * `enable_mixed_chunk` False by default; engines/sglang/memory.ts) runs each one as a forward of its own, so a step
 * that admits one short prompt after a request finishes still reads every weight its tokens touch and launches every
 * layer's kernels. Priced as the prefill of those tokens (prefillTime: its GEMMs, attention, one weight read, its host
 * launches), the read at the experts the step's tokens route to (each token picks its own top-k, so an MoE prefill
 * of k tokens reads E(1-(1-topK/E)^k) experts a layer, time/decode.ts linearReadOf); no less than the tokens' share of
 * a full chunk (`perToken`).
 */
export function prefillStepPricer(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: ReturnType<typeof gpuRates>,
  prompt: number,
  perToken: number,
): (tokens: number) => number {
  const memo = new Map<number, number>();
  // The step of k tokens (a multiple of the grain), memoized.
  const at = (k: number): number => {
    let s = memo.get(k);
    if (s === undefined) {
      const seqs = k / prompt;
      const step = { ...o, batch: Math.max(1, Math.round(seqs)) };
      const tr = decodeTraffic(m, step, t, r, step.batch, prompt);
      const routed = decodeTraffic(m, step, t, r, k, prompt).linearRead;
      const read = { ...tr, linearRead: Math.max(tr.linearRead, routed) };
      s = Math.max(prefillTime(m, step, r, read, prompt, seqs, t), perToken * k);
      memo.set(k, s);
    }
    return s;
  };
  // At most a grain: the grain's step; above, linear between the grains around it.
  return (tokens: number): number => {
    if (tokens <= PREFILL_STEP_GRAIN) return at(PREFILL_STEP_GRAIN);
    const lo = Math.floor(tokens / PREFILL_STEP_GRAIN) * PREFILL_STEP_GRAIN;
    const f = (tokens - lo) / PREFILL_STEP_GRAIN;
    return f === 0 ? at(lo) : at(lo) + (at(lo + PREFILL_STEP_GRAIN) - at(lo)) * f;
  };
}
