/**
 * A burst of `--batch` requests sent at once, run step by step as the engine's scheduler admits them
 * (time/length-spread.ts spreadBurst): each step spends the engine's batched-token budget (its profile's server
 * sizing chunkTokens: vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size), at most the slot cap running
 * (max_num_seqs; `--batch` unless the run capped it lower, as `launch` writes `--max-num-seqs` = `--batch`) on the KV
 * pool's tokens, so a burst the pool or the cap cannot hold runs in waves whose last decodes at the batch it has,
 * and the pool's preemptions prefill again. Every request at the mean prompt and output. `estimate`'s `time.burst`
 * and `validate --throughput`'s saturated bursts (batch_latency_s rows) both come from here.
 */
import type { Arch } from '../model/arch.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Gpu } from '../../schema/gpu.js';
import { outputTokensOf, promptTokensOf, type EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { BurstTime } from './burst.js';
import { frontendRequestSeconds } from './frontend.js';
import { servingGpuContext } from './gpu-memory-context.js';
import { spreadBatchSeconds, type LengthShape } from './length-spread.js';
import type { ModelFacts } from './model-facts.js';
import { poolRunning, queuesOnPool } from './pool-queue.js';

/** The KV pool a burst runs on: its tokens, and the running cap where the run set one below --batch. */
export interface BurstPool {
  poolTokens: number;
  /** max_num_seqs (absent: --batch, what `launch` writes). */
  maxNumSeqs?: number;
}

/** What spreadBatchSeconds runs a burst on: the slot cap, the pool's tokens, a wave's sequences, the step budget. */
export interface SteppedRun {
  slots: number;
  poolTokens: number;
  wave: number;
  budgetTokens: number;
}

/**
 * The engine a burst runs on (undefined: no budget, an engine without server sizing). `poolSequences`: the sequences
 * the pool holds at the mean context (estimate.ts servingOf `sequencesAtMeanContext`, capped by max_num_seqs).
 */
export function steppedRunOf(
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  poolSequences: number | undefined,
  pool: BurstPool,
): SteppedRun | undefined {
  const sizing = FRAMEWORKS[o.framework].server?.sizing;
  if (sizing === undefined) return undefined;
  const device = servingGpuContext(gpu, o, t);
  const budgetTokens = sizing(
    device.gpuCapacityBytes,
    o.tp,
    o.pp,
    device.gpuDeviceName,
  ).chunkTokens;
  return {
    slots: Math.min(o.batch, pool.maxNumSeqs ?? o.batch),
    poolTokens: pool.poolTokens,
    wave: poolRunning(o, poolSequences) ?? o.batch,
    budgetTokens,
  };
}

/**
 * Whether a burst at the means runs step by step: more than one request, one replica's plain decode step (no
 * speculation, DP attention or adapter slots: time/pool-queue.ts queuesOnPool), not vLLM's V0 engine (it scheduled
 * prefills first, unchunked by default: its bursts keep the static batch of time/burst.ts).
 */
export const burstSteps = (m: ModelFacts, o: EstimateOptions, t: TimeOptions): boolean =>
  o.batch > 1 && t.v0Scheduler !== true && queuesOnPool(m, o);

/**
 * The burst at the means run step by step (undefined: the engine has no budget). Its duration is the run's wall
 * time, bound below by the frontend (time/frontend.ts); a request's first token comes at the end of the step that
 * ends its first prefill, the frontend admitting requests one after another (request i after i + 1 of them). With a
 * request rate (`t.requestRate`) request i is sent i / rate after the first and enters the scheduler from then
 * (time/length-spread.ts sentAt): the duration runs from the first send to the last token, each TTFT from the
 * request's own send.
 */
export function steppedBurst(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  poolSequences: number | undefined,
  pool: BurstPool,
): BurstTime | undefined {
  const run = steppedRunOf(o, gpu, t, poolSequences, pool);
  if (run === undefined) return undefined;
  const N = o.batch;
  const [prompt, out] = [promptTokensOf(o), outputTokensOf(o)];
  const flat: LengthShape = { levels: [0, 100], prompt: [prompt, prompt], output: [out, out] };
  const runOf = (n: number): BurstFigures => {
    const b = spreadBatchSeconds(model, { ...o, batch: n }, gpu, t, flat, capped(run, n), 0);
    return {
      seconds: b.seconds,
      ttftMean: b.burst.ttftSumSeconds / n,
      ttftMax: b.burst.ttftMaxSeconds,
    };
  };
  const b = N <= STEPPED_BURST_MAX_REQUESTS ? runOf(N) : extrapolated(runOf, N);
  const front = frontendTtft(frontendRequestSeconds(o, t), N, t.requestRate ?? Infinity);
  const chunk = Math.max(prompt, run.budgetTokens);
  return {
    requests: N,
    chunkTokens: chunk,
    prefillSteps: Math.ceil((N * prompt) / chunk),
    ttftMeanSeconds: Math.max(b.ttftMean, front.mean),
    ttftMaxSeconds: Math.max(b.ttftMax, front.max),
    outputTokensPerSecond: (N * out) / b.seconds,
    durationSeconds: b.seconds,
  };
}

/**
 * The frontend's bound on the first tokens: it takes the requests one after another, `admit` seconds each, request i
 * once it is sent (i / rate; all at once where the rate is Infinity: request i after i + 1 of them), so request i
 * reaches the engine at max(its send, the one before's) + admit. The mean and the longest wait from a send.
 */
export function frontendTtft(
  admit: number,
  n: number,
  rate: number,
): { mean: number; max: number } {
  if (!Number.isFinite(rate)) return { mean: (admit * (n + 1)) / 2, max: admit * n };
  let [at, sum, max] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    at = Math.max(i / rate, at) + admit;
    sum += at - i / rate;
    max = Math.max(max, at - i / rate);
  }
  return { mean: sum / n, max };
}

/**
 * Requests a burst is run step by step for. A cost bound, not a measured figure: the run costs time linear in its
 * requests (about 1.3 s of CPU for 10,000 of them), so a larger burst is extrapolated (docs/assumptions.md).
 */
export const STEPPED_BURST_MAX_REQUESTS = 4096;

interface BurstFigures {
  seconds: number;
  ttftMean: number;
  ttftMax: number;
}

/** The run of n requests: n slots at most, a wave of at most n. */
const capped = (run: SteppedRun, n: number): SteppedRun => ({
  ...run,
  slots: Math.min(run.slots, n),
  wave: Math.min(run.wave, n),
});

/**
 * A burst past STEPPED_BURST_MAX_REQUESTS: the runs of half that and of that many, continued on the line through them.
 * Past a few waves the pool admits the same wave again and again, so the duration, the last first token and the mean
 * first token grow by the same time per further request; never less than at the bound.
 */
function extrapolated(runOf: (n: number) => BurstFigures, N: number): BurstFigures {
  const hi = STEPPED_BURST_MAX_REQUESTS;
  const lo = hi / 2;
  const [a, z] = [runOf(lo), runOf(hi)];
  const line = (x: number, y: number): number => y + Math.max(0, (y - x) / (hi - lo)) * (N - hi);
  return {
    seconds: line(a.seconds, z.seconds),
    ttftMean: line(a.ttftMean, z.ttftMean),
    ttftMax: line(a.ttftMax, z.ttftMax),
  };
}
