/**
 * A burst: `--batch` requests of `--prompt-tokens` sent at once to an engine that batches continuously (the
 * most common published serving benchmark: `vllm bench serve` / `sglang.bench_serving` with every prompt sent at
 * time zero). The engine prefills at most its batched-token budget per step (its memory profile's server sizing: vLLM's
 * max_num_batched_tokens, SGLang's chunked_prefill_size by GPU memory),
 * so the prompts queue in chunks: a request's first token comes when the chunk holding the end of its prompt is
 * done. Then all of them decode together. The steady-state figures (`ttftSeconds`, `tpotSeconds`) are one
 * request's under a full batch that replaces requests as they finish; these are the run's from a cold start.
 * Decode steps of requests already prefilled while later chunks run are not counted (they would give those
 * requests their tokens earlier, not the run more throughput).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { meanContextOf, outputTokensOf, promptTokensOf } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { decodeStep, decodeTraffic, prefillTime } from './decode.js';
import { frontendRequestSeconds, frontendSeconds } from './frontend.js';
import type { GpuContext, GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

export interface BurstTime {
  /** Requests sent at once (--batch). */
  requests: number;
  /** Prompt tokens the engine prefills per step, and the steps the burst's prompts take. */
  chunkTokens: number;
  prefillSteps: number;
  /** Time to first token over the burst's requests: mean, and the last request's. */
  ttftMeanSeconds: number;
  ttftMaxSeconds: number;
  /** Output tokens over the run's wall time (`durationSeconds` where the burst runs step by step). */
  outputTokensPerSecond: number;
  /**
   * The run's wall time from the sends to the last request's last token, where the burst runs step by step as the
   * engine's scheduler admits it (time/stepped-burst.ts: the KV pool's tokens known); what `validate --throughput`
   * scores a saturated burst by. Not rounded.
   */
  durationSeconds?: number;
}

/** A burst's prefill: the engine's chunk, the seconds of one whole chunk and of all of the burst's prompts. */
export interface BurstPrefill {
  chunk: number;
  steps: number;
  chunkSeconds: number;
  seconds: number;
}

/** The prefill of `--batch` prompts in chunks of the engine's batched-token budget (undefined: no budget). */
export function burstPrefill(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  device: GpuContext,
): BurstPrefill | undefined {
  const sizing = FRAMEWORKS[o.framework].server?.sizing;
  const budget = sizing?.(device.gpuCapacityBytes, o.tp, o.pp, device.gpuDeviceName).chunkTokens;
  if (budget === undefined) return undefined;
  const prompt = promptTokensOf(o);
  const chunk = Math.max(prompt, budget);
  const total = o.batch * prompt;
  const steps = Math.ceil(total / chunk);
  // One full chunk: chunk / prompt prompts of `prompt` tokens (attention over each prompt's own tokens).
  const tr = decodeTraffic(m, o, t, r, 1, prompt);
  const chunkSeconds = prefillTime(m, o, r, tr, prompt, chunk / prompt, t);
  // The last step prefills what is left of the prompts, not a whole budget: the scheduler fills a step with the
  // waiting prompt tokens up to its budget (vLLM Scheduler.schedule `token_budget`; SGLang PrefillAdder
  // `rem_chunk_tokens`), so a burst is priced by its tokens, and one more prompt never costs a whole chunk.
  const lastTokens = total - (steps - 1) * chunk;
  const lastSeconds =
    lastTokens >= chunk ? chunkSeconds : prefillTime(m, o, r, tr, prompt, lastTokens / prompt, t);
  return { chunk, steps, chunkSeconds, seconds: (steps - 1) * chunkSeconds + lastSeconds };
}

export function burstTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  device: GpuContext,
): BurstTime | undefined {
  const N = o.batch;
  const pf = N <= 1 ? undefined : burstPrefill(m, o, t, r, device);
  if (pf === undefined) return undefined;
  const prompt = promptTokensOf(o);
  const out = outputTokensOf(o);
  const { chunk, steps, chunkSeconds } = pf;
  const prefillAll = pf.seconds;
  // Request i (0-based) waits for the chunks up to the one that ends its prompt.
  let sum = 0;
  for (let i = 0; i < N; i++) {
    const k = Math.ceil(((i + 1) * prompt) / chunk);
    sum += k < steps ? k * chunkSeconds : prefillAll;
  }
  const step = decodeStep(m, o, t, r, false, meanContextOf(o)).stepSeconds;
  // The frontend takes the requests one after another (request i reaches the engine after i + 1 of them) and
  // streams every token; it overlaps the GPU and bounds the run where its own work is longer (time/frontend.ts).
  const admit = frontendRequestSeconds(o, t);
  return {
    requests: N,
    chunkTokens: chunk,
    prefillSteps: steps,
    ttftMeanSeconds: Math.max(sum / N, (admit * (N + 1)) / 2),
    ttftMaxSeconds: Math.max(prefillAll, admit * N),
    outputTokensPerSecond:
      (N * out) / Math.max(prefillAll + (out - 1) * step, frontendSeconds(o, t, N, out)),
  };
}
