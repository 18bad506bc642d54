/**
 * A replica's decode tokens/s (time/serving-step.ts replicaTokensPerSecond) remembered by what it is a function
 * of: the model's facts (one object per architecture: time/model-facts.ts), the row's options and the GPU
 * option's rates at one power level. A serving scenario's fleet runs one search per owned GPU type and rent offer
 * (fleet.ts fleetCandidates) after the search over all of them, and those searches time the same rows on the same
 * rates again (`serve-mixed-fleet`: 4,484 calls, 2,242 distinct), each with its own row and rate objects, so the
 * key is their content (JSON); the value is the same number the call returns. A row whose KV pool holds fewer
 * sequences than its batch runs that many (runningOn), timed as the row at that batch.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Arch } from '../model/arch.js';
import { servingOf, type Serving } from '../estimate.js';
import { estimateMemory } from '../memory/memory.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { gpuContext, type GpuRates } from '../time/hardware.js';
import { servingGpuContext } from '../time/gpu-memory-context.js';
import type { ModelFacts } from '../time/model-facts.js';
import { poolRunning, queuesOnPool } from '../time/pool-queue.js';
import { replicaServingTime, replicaTokensPerSecond } from '../time/serving-step.js';
import { decodeReadsAttention } from '../time/decode-host.js';
import { attentionAlike } from '../memory/inference.js';

/** Rows kept per model before the table starts over (a long-lived explorer re-plans many scenarios). */
const MAX_ROWS = 20_000;

/** A serving row's tokens/s and a request's TTFT/TPOT by rates key, shared by the rows that time alike. */
interface ServingFigures {
  tps: Map<string, number>;
  latency: Map<string, { ttft: number; tpot: number }>;
}

/** The figures of the rows that time alike, and the running rows of those among them that also estimate alike. */
interface TimingClass extends ServingFigures {
  running: Map<string, ServingMemo | null>;
  pools: Map<string, Serving | undefined>;
}

/**
 * A serving row's remembered figures: its options (the first object of that content), its tokens/s and a
 * request's TTFT/TPOT by rates key (the rate reads the latency, and the planner's SLO check reads it again; both
 * shared with the rows whose options differ only in what the time model does not read: timingKey), and by GPU the
 * row that runs where the KV pool holds fewer of its sequences than its batch (null: all run).
 */
export interface ServingMemo extends ServingFigures {
  options: EstimateOptions;
  running: Map<string, ServingMemo | null>;
  /** The row's KV pool on each GPU (estimate.ts servingOf), by the GPU's capacity and device name. */
  pools: Map<string, Serving | undefined>;
}

/** One model's rows by options' content, and their figures by timingKey. */
interface ModelMemo {
  rows: Map<string, ServingMemo>;
  figures: Map<string, TimingClass>;
}

const byFacts = new WeakMap<ModelFacts, ModelMemo>();
const rateKeys = new WeakMap<GpuRates, string>();

function rateKey(r: GpuRates): string {
  let k = rateKeys.get(r);
  if (k === undefined) rateKeys.set(r, (k = JSON.stringify(r)));
  return k;
}

/**
 * The content of `o` (its JSON `key`) as the serving time model under `t` reads it: without the attention kernel
 * where no figure reads it (time/decode-host.ts decodeReadsAttention). A search tries each attention on every
 * serving layout (the memory model reads it), so this halves the rows it times.
 */
function timingKey(o: EstimateOptions, t: TimeOptions, key: string): string {
  if (o.attention === undefined || decodeReadsAttention(FRAMEWORKS[o.framework], o, t)) return key;
  // JSON leaves out keys whose value is undefined: the same string as `o` without it.
  return JSON.stringify({ ...o, attention: undefined });
}

/**
 * A row's memo (made once per row: plan/loop.ts rowTimingOf), shared by every row with the same model and the
 * same options' content, its figures by every row that times alike under `t` (the one time options its callers
 * pass: the planner's PLAN_DECODE_TIME), its running rows (runningOn) by those that also estimate alike. Its rate keys are one string per rates object, made once, so a lookup
 * hashes a string V8 has already hashed.
 */
export function tpsTableOf(m: ModelFacts, o: EstimateOptions, t: TimeOptions): ServingMemo {
  let mm = byFacts.get(m);
  if (mm === undefined) byFacts.set(m, (mm = { rows: new Map(), figures: new Map() }));
  const key = JSON.stringify(o);
  let memo = mm.rows.get(key);
  if (memo === undefined) {
    if (mm.rows.size >= MAX_ROWS) {
      mm.rows.clear();
      mm.figures.clear();
    }
    const tk = timingKey(o, t, key);
    let fig = mm.figures.get(tk);
    if (fig === undefined)
      mm.figures.set(
        tk,
        (fig = { tps: new Map(), latency: new Map(), running: new Map(), pools: new Map() }),
      );
    // Rows that time alike and whose memory estimates are alike too (memory/inference.ts attentionAlike) have one
    // KV pool on a GPU, and so run alike there.
    const alike = tk !== key && attentionAlike(o);
    const running = alike ? fig.running : new Map();
    const pools = alike ? fig.pools : new Map();
    memo = { options: o, tps: fig.tps, latency: fig.latency, running, pools };
    mm.rows.set(key, memo);
  }
  return memo;
}

/**
 * The row a GPU runs (time/pool-queue.ts), as `estimate` times it: where the memory model's KV pool on `gpu`
 * (estimate.ts servingOf: the sequences it holds at the mean context) holds fewer than the row's batch, the
 * memo of the row at that many sequences (its figures under `t`), whose step, rates and latency the queued requests get; the row's own
 * memo otherwise, and for the rows the time model does not queue (speculative, DP attention, adapter slots).
 * The pool is the GPU's (its capacity and device name), not the power level's: one estimate per row and GPU.
 */
export function runningOn(
  memo: ServingMemo,
  arch: Arch,
  m: ModelFacts,
  gpu: Gpu,
  t: TimeOptions,
): ServingMemo {
  const o = memo.options;
  // Only a paged pool can hold fewer than the batch (llama.cpp's slots hold each sequence whole), and a batch of
  // one runs whole or not at all (pool-queue.ts poolRunning).
  if (o.batch < 2 || FRAMEWORKS[o.framework].kvCache !== 'paged-pool' || !queuesOnPool(m, o))
    return memo;
  const key = gpuKey(gpu);
  let run = memo.running.get(key);
  if (run === undefined) {
    const c = poolRunning(o, poolOn(memo, arch, gpu)?.sequencesAtMeanContext);
    run = c === undefined ? null : tpsTableOf(m, { ...o, batch: c }, t);
    memo.running.set(key, run);
  }
  return run ?? memo;
}

const gpuKey = (gpu: Gpu): string => {
  const ctx = gpuContext(gpu);
  return `${ctx.gpuCapacityBytes}|${ctx.gpuDeviceName}`;
};

/**
 * The row's KV pool on `gpu` (estimate.ts servingOf of the memory model on that GPU, its MXFP4 experts at the
 * kernel's padded shape: gpu-memory-context.ts, as plan/admitted.ts reads the plan's), remembered in `memo`.
 */
function poolOn(memo: ServingMemo, arch: Arch, gpu: Gpu): Serving | undefined {
  const key = gpuKey(gpu);
  if (memo.pools.has(key)) return memo.pools.get(key);
  const ctx = servingGpuContext(gpu, memo.options);
  const pool = servingOf(estimateMemory(arch, memo.options, ctx), memo.options);
  memo.pools.set(key, pool);
  return pool;
}

/**
 * Whether a serving row runs on `gpu` under its engine's own admission rule though its batch's KV does not fit at
 * once: an engine that serves from a paged KV pool (its profile's kvCache 'paged-pool' with a server) sizes the
 * pool from its memory fraction after the weights and the profiled activations, serves where the pool holds one
 * sequence of the job's length, and admits up to its running-request cap while blocks last, the rest waiting
 * (pool-queue.ts). vLLM V1 refuses to start below one sequence ("To serve at least one request with the models's
 * max seq len ...": check_enough_kv_cache_memory, vllm/v1/core/kv_cache_utils.py); SGLang caps a request at the
 * pool (`max_req_len = min(context_len - 1, max_total_num_tokens - 1)`, python/sglang/srt/managers/scheduler.py).
 * Rows the time model does not queue (queuesOnPool) keep the whole-batch rule.
 */
export function admitsFromPool(memo: ServingMemo, arch: Arch, m: ModelFacts, gpu: Gpu): boolean {
  return queuesWhole(memo.options, m) && runsQueued(memo.options, poolOn(memo, arch, gpu), m);
}

/** Whether the row's engine admits from a paged pool and the time model queues it (admitsFromPool). */
const queuesWhole = (o: EstimateOptions, m: ModelFacts): boolean => {
  const fw = FRAMEWORKS[o.framework];
  return (
    o.batch >= 2 && fw.kvCache === 'paged-pool' && fw.server !== undefined && queuesOnPool(m, o)
  );
};

/**
 * Whether options `o` run with `serving` (estimate.ts servingOf on the GPU) by their engine's admission rule
 * (admitsFromPool): the launch of a plan the planner ranked so, whose `estimate` fit verdict counts every sequence.
 */
export const runsQueued = (
  o: EstimateOptions,
  serving: Serving | undefined,
  m: ModelFacts,
): boolean => queuesWhole(o, m) && (serving?.sequencesAtMaxContext ?? 0) >= 1;

/**
 * replicaTokensPerSecond(m, memo.options, t, r), remembered in `memo` (tpsTableOf(m, o, t)); `t` is one fixed
 * object per caller (the planner's PLAN_DECODE_TIME), so it is not part of the key.
 */
export function memoTokensPerSecond(
  memo: ServingMemo,
  m: ModelFacts,
  t: TimeOptions,
  r: GpuRates,
): number {
  const k = rateKey(r);
  let tps = memo.tps.get(k);
  if (tps === undefined)
    memo.tps.set(
      k,
      (tps = replicaTokensPerSecond(m, memo.options, t, r, memoServingTime(memo, m, t, r))),
    );
  return tps;
}

/** replicaServingTime(m, memo.options, t, r), remembered in `memo` as memoTokensPerSecond is (read-only). */
export function memoServingTime(
  memo: ServingMemo,
  m: ModelFacts,
  t: TimeOptions,
  r: GpuRates,
): { ttft: number; tpot: number } {
  const k = rateKey(r);
  let lat = memo.latency.get(k);
  if (lat === undefined) memo.latency.set(k, (lat = replicaServingTime(m, memo.options, t, r)));
  return lat;
}
