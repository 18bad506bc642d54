/**
 * A serving engine with a paged KV pool runs only the requests its pool holds. vLLM's scheduler admits a waiting
 * request when the KV cache manager finds blocks for its next tokens and leaves it waiting otherwise
 * (`Scheduler.schedule`: `allocate_slots` returning None, "The request cannot be scheduled";
 * vllm-project/vllm@b4622cf924bc72504aed99e486062d6633fde39e vllm/v1/core/sched/scheduler.py). Where the memory
 * model's pool holds fewer sequences at the mean context (`serving.sequencesAtMeanContext`; fewer still where the
 * engine's scheduler reserves pool for running requests' output, time/admission-reserve.ts) than `--batch`, that many
 * decode together and the rest queue:
 * - in steady state (`--batch` clients, each sending its next request when the last one ends: `vllm bench serve
 *   --max-concurrency`), a request's service time is S = TTFT + (out - 1) x TPOT at the pool's count c, so by
 *   Little's law a request takes B x S / c from its send to its last token: its TTFT carries (B / c - 1) x S of
 *   waiting, its TPOT is the running batch's;
 * - a burst of B sent at once runs as B / c bursts of c back to back (a finished request's slot taken by the next),
 *   each at one burst of c's decode, all B prompts prefilled in whole chunks; the last request's first token comes after every prompt's chunks and
 *   the decodes of the waves before it (a pool that shrinks as --batch grows never brings it earlier).
 * The steady figures and the step are those of the c sequences that run.
 */
import { outputTokensOf, promptTokensOf, type EstimateOptions } from '../../schema/estimate.js';
import type { BurstTime } from './burst.js';
import { dpAttentionTimed } from './expert-parallel.js';
import type { ModelFacts } from './model-facts.js';
import { speculates } from './speculative.js';

/**
 * Whether a short pool queues the row's requests in the time model: plain decoding only (one replica's step, no
 * speculation, DP attention or adapter slots), as estimateTime times it; the planner asks the same.
 */
export const queuesOnPool = (m: ModelFacts, o: EstimateOptions): boolean =>
  !dpAttentionTimed(m, o) && !speculates(o) && o.maxLoras === undefined;

/**
 * The sequences that run at once where the pool holds fewer than --batch (undefined: all of them run, or the pool
 * holds none: the weights leave it nothing and the estimate's fit verdict says so; the time is then --batch's).
 */
export function poolRunning(
  o: EstimateOptions,
  poolSequences: number | undefined,
): number | undefined {
  if (poolSequences === undefined || !Number.isFinite(poolSequences)) return undefined;
  const c = Math.floor(poolSequences);
  return c >= 1 && c < o.batch ? c : undefined;
}

/** A request's TTFT and TPOT in a closed loop of --batch clients served c at a time. */
export function queuedLatency(
  lat: { ttftSeconds: number; tpotSeconds: number },
  o: EstimateOptions,
  c: number,
): { ttftSeconds: number; tpotSeconds: number } {
  const service = lat.ttftSeconds + (outputTokensOf(o) - 1) * lat.tpotSeconds;
  return {
    ttftSeconds: lat.ttftSeconds + (o.batch / c - 1) * service,
    tpotSeconds: lat.tpotSeconds,
  };
}

/**
 * A burst of --batch requests served c at a time, from one burst of c (`b`; undefined for c = 1, whose burst is
 * one request's TTFT and its decode, `single`).
 */
export function queuedBurst(
  b: BurstTime | undefined,
  single: { ttftSeconds: number; tpotSeconds: number },
  o: EstimateOptions,
  c: number,
  prefill?: { wave: number; packed: number },
): BurstTime {
  const out = outputTokensOf(o);
  const prompt = promptTokensOf(o);
  const one: BurstTime = b ?? {
    requests: 1,
    chunkTokens: prompt,
    prefillSteps: 1,
    ttftMeanSeconds: single.ttftSeconds,
    ttftMaxSeconds: single.ttftSeconds,
    outputTokensPerSecond: out / (single.ttftSeconds + (out - 1) * single.tpotSeconds),
  };
  const waves = o.batch / c;
  const wave = (c * out) / one.outputTokensPerSecond;
  const prefillSteps = Math.ceil((o.batch * prompt) / one.chunkTokens);
  // The last request's first token: every prompt's chunks (the scheduler fills each step's budget with whatever
  // prompts are waiting, so later waves' prompts pack into whole chunks), after the decodes of the waves before it,
  // each freeing the slots the next wave takes.
  const chunkSeconds = one.ttftMaxSeconds / one.prefillSteps;
  const decodePerWave = Math.max(0, wave - one.ttftMaxSeconds);
  const ttftMeanSeconds = one.ttftMeanSeconds + ((waves - 1) / 2) * wave;
  return {
    requests: o.batch,
    chunkTokens: one.chunkTokens,
    prefillSteps,
    ttftMeanSeconds,
    ttftMaxSeconds: Math.max(
      ttftMeanSeconds,
      prefillSteps * chunkSeconds + (waves - 1) * decodePerWave,
    ),
    outputTokensPerSecond: (o.batch * out) / runSeconds(one, waves, wave, prefill),
  };
}

/**
 * The run's wall time: `waves` bursts of c back to back, whose prompts the scheduler packs into whole chunks across
 * waves (it fills each step's budget with whatever prompts wait), so the run pays the prefill of all its prompts at
 * once (`packed`), not each wave's last partial chunk again (`wave`). A wave bound by the frontend keeps its time.
 */
function runSeconds(
  one: BurstTime,
  waves: number,
  wave: number,
  prefill: { wave: number; packed: number } | undefined,
): number {
  const frontBound = prefill === undefined || one.ttftMaxSeconds > prefill.wave * 1.001;
  return frontBound ? waves * wave : waves * (wave - prefill.wave) + prefill.packed;
}
