/** The hardware loop: every row on every GPU option and power level, timed and ranked without allocation. */
import { engineFieldsInto } from '../engines/engines.js';
import { hostRamPerNode } from '../memory/host-ram.js';
import { type Engine } from '../../schema/engine.js';
import { onCapacity } from '../memory/surface.js';
import { mxfp4UpcastBytes } from './mxfp4-upcast-fit.js';
import { poolStartShort } from '../memory/inference.js';
import { ENGINE_PROFILES, FRAMEWORKS } from '../engines/store.js';
import type { ObjectiveWork } from '../time/objective.js';
import { isPreferenceOrRl } from '../../schema/estimate.js';
import type { GpuRates, TrainWork } from '../time/index.js';
import type { CountFreeWork } from '../time/train-work.js';
import { freesOf, rowWork } from './row-work.js';
import { rowStep, stepsFor } from './row-step.js';
import { withExpertGroup } from './expert-parallel.js';
import { searchedMinCapability } from './candidates.js';
import { FLOAT8_MIN_CC } from '../kernels/float8.js';
import {
  memoServingTime,
  memoTokensPerSecond,
  admitsFromPool,
  runningOn,
  tpsTableOf,
  type ServingMemo,
} from './tps-memo.js';
import { queuedLatency } from '../time/pool-queue.js';
import { jobCostUsd, overheadHours, spotSaveHours } from '../time/cost.js';
import { trainableParams } from '../memory/setup.js';
import { circuitOverWatts, planWallWatts, type NodeWatts } from '../hardware/power.js';
import {
  flashCapabilities,
  engineFloorCapability,
  minComputeCapability,
  minKvCapability,
  runsOnRocm,
} from '../engines/kernels.js';
import { torchRunsOn } from '../engines/torch-targets.js';
import { appleWeightsOf, loadsLiger, optimizerRunsOnApple, runsOnApple } from '../engines/apple.js';
import { promptTokensOf, type EstimateOptions } from '../../schema/estimate.js';
import { OFFLOADS, hostRamLimit } from './configs.js';
import {
  FLASH,
  FP8,
  MAX_LEVELS,
  NEAR_TIE,
  PLAN_DECODE_TIME,
  foldedIntoKept,
  notBetterThanWorst,
  rankKeysInto,
  rankedSlot,
  rankHours,
  REASON,
  tieEdge,
  trimPastTies,
  hwTableOf,
  limitsOf,
  prune,
  timeOptionsOf,
} from './context.js';
import type { Ctx, HwTable, Kept, Limits, LoopState, Objectives, RankKeys } from './context.js';

export { emptyLoopState } from './loop-state.js';
import { CountedPlans, DistinctPlans } from './distinct.js';
import { emptyLoopState, wattsTellCounts } from './loop-state.js';
import { ligerTwinVariants, twinRowOf } from './liger-twins.js';
import { TwinTimes } from './twin-times.js';
import { ObjectiveWorks } from './objective-works.js';
import { DOUBLE_FIELD } from '../double-field.js';

/** What one row (configuration x layout) brings to every GPU option it is tried on. */
interface RowFacts {
  o: EstimateOptions;
  count: number;
  dp: number;
  zero: number;
  device: number;
  host: number;
  /** GRPO vllm-colocate: vLLM's share of each GPU and the least it holds (0, 0 otherwise). */
  share: number;
  floor: number;
  /** Serving rows: what the engine's pool budget must hold to start; GRPO vllm-colocate: vLLM's share (0: none). */
  start: number;
  engine: Engine;
  flash: boolean;
  /** Flash attention the engine runs on these compute capabilities only (engines/kernels.ts; null: no such gate). */
  flashCc: readonly number[] | null;
  /** The least compute capability the engine runs anything on, on CUDA GPUs (engines/kernels.ts; 0: none). */
  floorCc: number;
  fp8: boolean;
  /** An fp8 KV cache (engines/kernels.ts minKvCapability). */
  kvFp8: boolean;
  noFp16Engine: boolean;
  /**
   * Why an Apple GPU option cannot run the row (a REASON code, asked in estimate's order: appleReasonOf), or -1.
   */
  appleReason: number;
  /** The engine's guides launch on one machine only and the scenario does not search undocumented paths. */
  oneMachine: boolean;
  /** Least compute capability the engine's kernels for the weights need (engines/kernels.ts; 0: none). */
  minCc: number;
  /** Serving rows: one-off GPU-hours of making the weights first (made-weights.ts; 0: nothing to make). */
  makeGpuHours: number;
  /** What timing reads, made when the row first fits a GPU option (a third of rows never do). */
  timed: RowTiming | null;
}

interface RowTiming {
  /** The engine's options of the row (master weights, optimizer-in-backward) as memory has them. */
  options: EstimateOptions;
  /** Serving rows: their tokens/s by GPU rates, shared with rows of the same content (tps-memo.ts). */
  tps: ServingMemo | null;
  /** The time model's GPU-independent work (training), or null (inference). */
  work: TrainWork | null;
  /** Preference / RL rows: the objective's work (time/objective.ts), timed instead of `work`. */
  objective: ObjectiveWork | null;
  ownedOverhead: number;
  rentedOverhead: number;
  /** Trainable parameters: a spot run saves their training state periodically (cost.ts spotSaveHours). */
  trainable: number;
  /** Training and preference / RL rows: the step by rates object, where options share them (row-step.ts). */
  steps: Float64Array | null;
}

function rowFactsOf(ctx: Ctx, r: number): RowFacts {
  const { rows, mem, bases, baseBits } = ctx;
  const bi = rows.base[r]!;
  const vi = rows.variant[r]!;
  const mi = rows.mem[r]!;
  const bits = baseBits[bi]!;
  return {
    o: bases[bi]!.options,
    count: rows.count[r]!,
    dp: rows.dp[r]!,
    zero: rows.zero[r]!,
    device: mem.device[mi]!,
    host: mem.host[mi]!,
    share: mem.share[mi]!,
    floor: mem.floor[mi]!,
    start: mem.start[mi]!,
    engine: ctx.variants[vi]!.engine,
    flash: (bits & FLASH) !== 0,
    flashCc:
      (bits & FLASH) !== 0 ? flashCapabilities(ctx.variants[vi]!.engine, ctx.arch.modelType) : null,
    floorCc: engineFloorCapability(ctx.variants[vi]!.engine),
    fp8: (bits & FP8) !== 0,
    kvFp8: bases[bi]!.options.kvCacheDtype === 'fp8',
    noFp16Engine: ctx.noFp16Variant[vi] === 1,
    oneMachine: ctx.oneMachineVariant[vi] === 1,
    appleReason: appleReasonOf(
      ctx.variants[vi]!.engine,
      bases[bi]!.options,
      ctx.variants[vi]!.liger,
    ),
    minCc: Math.max(
      minComputeCapability(ctx.variants[vi]!.engine, bases[bi]!.options.weights),
      minKvCapability(ctx.variants[vi]!.engine, bases[bi]!.options.kvCacheDtype),
      searchedMinCapability(bases[bi]!.options.weights),
      // MXFP8 training: MX block-scaled GEMMs from compute capability 10.0 (kernels/float8.ts).
      bases[bi]!.options.compute === 'mxfp8' ? FLOAT8_MIN_CC.mxfp8 : 0,
    ),
    makeGpuHours: ctx.makeGpuHours[bi]!,
    timed: null,
  };
}

/**
 * Trainable parameters of a training row, as the memory model counts them (memory/setup.ts trainableParams), once
 * per configuration and engine variant (`memo`). trainableParams reads the method, LoRA targets, all-linear, rank,
 * modules to save and images of the options and the engine's framework; a row's options are its configuration's
 * with the layout's fields (GPUs, TP, PP, ZeRO, offload) and the engine's (engineFieldsInto: targets from the
 * configuration's method and the engine's profile), so rows of one configuration and variant count alike.
 */
function trainableOf(
  ctx: Ctx,
  r: number,
  f: RowFacts,
  o: EstimateOptions,
  memo: Map<number, number>,
): number {
  const key = ctx.rows.base[r]! * ctx.variants.length + ctx.rows.variant[r]!;
  let n = memo.get(key);
  if (n === undefined) {
    const fw = FRAMEWORKS[ENGINE_PROFILES[f.engine].framework];
    memo.set(key, (n = trainableParams(ctx.arch, o, fw, ctx.P.total)));
  }
  return n;
}

/** The row's timing facts (made once, on its first fitting GPU option). */
function rowTimingOf(L: Loop, r: number, f: RowFacts): RowTiming {
  if (f.timed) return f.timed;
  const { ctx, lim, objectives } = L;
  const { rows, P } = ctx;
  const o = f.o;
  const variant = ctx.variants[rows.variant[r]!]!;
  // One options object per row (none per candidate), with the engine's options as memory has them: a copy
  // written field by field (the keys of a spread literal beside the copied ones are slow: grow-copy.ts).
  const options: EstimateOptions = { ...o };
  options.gpus = f.count;
  options.tp = rows.tp[r]!;
  options.pp = rows.pp[r]!;
  options.zero = f.zero as 0 | 1 | 2 | 3;
  options.offload = OFFLOADS[rows.offload[r]!]!;
  options.optimizerInBackward = variant.optimizerInBackward;
  options.liger = variant.liger;
  if (variant.tiledMlp === true) options.tiledMlp = true;
  engineFieldsInto(options, f.engine);
  withExpertGroup(options); // DP attention: expert parallel over the row's GPUs
  // Per-job fixed time (cost.ts JOB_OVERHEAD): load the checkpoint, save the result (a full fine-tune
  // writes 16-bit weights; adapters are megabytes); rented machines also start up and download it.
  const saved = o.method === 'full' ? P.total * 2 : 0;
  const tOpts = timeOptionsOf(ctx, 0, 1, rows.accum[r]!);
  const rl = lim.training && isPreferenceOrRl(options);
  return (f.timed = {
    options,
    tps: lim.training ? null : tpsTableOf(ctx.facts, options, PLAN_DECODE_TIME),
    work: lim.training && !rl ? rowWork(ctx, r, options, tOpts, L.frees, L.twins) : null,
    objective: rl
      ? objectives.of(
          ctx.facts,
          options,
          tOpts,
          P.total,
          rows.base[r]!,
          rows.variant[r]!,
          rows.offload[r]!,
          rows.accum[r]!,
        )
      : null,
    ownedOverhead: overheadHours(lim.ckptBytes, saved, false),
    rentedOverhead: overheadHours(lim.ckptBytes, saved, true),
    trainable: lim.training ? trainableOf(ctx, r, f, options, L.trainables) : 0,
    steps: lim.training ? stepsFor(L.t.distinctRates, L.usedRates) : null,
  });
}

/**
 * Why an Apple GPU cannot run a row of `engine` with `o` (and Liger's kernels where `liger`), asked in estimate's
 * order (engines/gpu-refusal.ts), or -1: the engine has no Apple GPU path; its quantization path fails on the weights
 * there or was not read for them (engines/apple.ts appleWeightsOf: estimated, not planned); Liger's Triton kernels do
 * not install on macOS (loadsLiger); bitsandbytes' 8-bit and paged optimizer steps have no MPS kernel
 * (engines/optimizers.ts notOnApple).
 */
function appleReasonOf(engine: Engine, o: EstimateOptions, liger: boolean): number {
  if (!runsOnApple(engine)) return REASON['no-engine'];
  if ((appleWeightsOf(engine, o.weights) ?? 'runs') !== 'runs') return REASON['no-apple-weights'];
  if (o.method === 'inference') return -1;
  if (loadsLiger(engine, { liger, chunkedLoss: o.chunkedLoss })) return REASON['no-apple-kernels'];
  return optimizerRunsOnApple(o.optimizer) ? -1 : REASON['no-quant-kernels'];
}

/** The reason a GPU option cannot run the row at all (before memory), or -1. */
function hardwareGate(t: HwTable, f: RowFacts, h: number): number {
  if (f.count > t.maxCountOf[h]!) return REASON['not-enough-gpus'];
  const nodeSize = t.nodeSizeOf[h]!;
  if (t.isRent[h] === 1 && f.count % nodeSize !== 0 && f.count > 1) return REASON['partial-node'];
  // An engine whose guides launch on one machine only, over several (EngineProfile.oneMachineDocumented).
  if (f.oneMachine && f.count > nodeSize) return REASON.undocumented;
  if (f.flash && t.noFlash[h] === 1) return REASON['no-flash-attention'];
  // A flash kernel the library swaps in for the model, built for some GPUs only (gpt-oss on the HF engines).
  if (f.flashCc !== null && !f.flashCc.includes(t.cc[h]!)) return REASON['no-model-flash'];
  // What the engine, its weights, Liger's kernels or the optimizer cannot run on an Apple GPU (appleReasonOf).
  if (f.appleReason >= 0 && t.apple[h] === 1) return f.appleReason;
  // An engine whose kernels are built for newer CUDA GPUs only (t.cc 0: Apple; NaN: AMD).
  if (t.cc[h]! > 0 && t.cc[h]! < f.floorCc) return REASON['no-engine'];
  // bf16 plans fall back to fp16 on GPUs without bf16 (materialize); some engines have no fp16.
  if (f.noFp16Engine && t.noBf16[h] === 1 && f.o.compute === 'bf16') return REASON['no-engine'];
  // Training engines whose pinned torch has no ROCm kernels for the GPU (engines/torch-targets.ts).
  const gfxOfH = t.gfx[h] ?? null;
  if (gfxOfH !== null && !torchRunsOn(f.engine, gfxOfH)) return REASON['no-engine'];
  // Serving engines with their own kernel table (engines/kernels.ts: vLLM runs FP8 weight-only on Ampere).
  if (f.minCc > 0) {
    // AMD GPUs: the engine's gfx-target table (engines/kernels.ts runsOnRocm), as `estimate --gpu` reads it.
    const gfx = t.gfx[h] ?? null;
    if (gfx !== null)
      return runsOnRocm(f.engine, f.o.weights, gfx, true)
        ? -1
        : REASON[f.fp8 ? 'no-fp8' : 'no-quant-kernels'];
    return t.cc[h]! < f.minCc ? REASON[f.fp8 || f.kvFp8 ? 'no-fp8' : 'no-quant-kernels'] : -1;
  }
  if (f.fp8 && t.noFp8[h] === 1) return REASON['no-fp8'];
  return -1;
}

/** One search pass: its state, inputs, limits, hardware table and reused scratch. */
export interface Loop {
  st: LoopState;
  ctx: Ctx;
  lim: Limits;
  t: HwTable;
  overCache: Float64Array;
  tm: Timing;
  wall: NodeWatts;
  keys: RankKeys;
  cand: Objectives;
  /**
   * Preference / RL rows: the objective's work, shared by rows alike but for vLLM's colocated share, and its policy's,
   * by rows that differ only in the rollout.
   */
  objectives: ObjectiveWorks;
  /** Training rows: the CountFreeWork of each countFreeKey met (rowWork). */
  frees: Map<number, CountFreeWork>;
  /** Training rows: trainable parameters by configuration and engine variant (trainableOf). */
  trainables: Map<number, number>;
  /** Per engine variant, its Liger twin's (liger-twins.ts ligerTwinVariants); the facts of pairs' second rows. */
  twins: Int8Array;
  twinFacts: Map<number, RowFacts>;
  /** The current row's Liger twin row (twinRowOf; -1: none) and its timing scratch. */
  twinRow: number;
  twinTm: Timing;
  /** The hours of a twin pair's first row by GPU option and level (h * MAX_LEVELS + l), NaN where it did not fit. */
  pairHours: Float64Array;
  /** The row whose hours L.pairHours holds (-1: none). */
  pairOf: number;
  /** The times of the rows of the Liger pairs being searched, each worked out once (twin-times.ts). */
  times: TwinTimes;
  /** GPU option and level slots the search uses (rows' steps are kept by rates object where fewer: row-step.ts). */
  usedRates: number;
}

/** A deferred row's memory (MemTable.deferred), written now into the table and its facts. */
function deferredInto(ctx: Ctx, r: number, f: RowFacts): void {
  const { mem, rows } = ctx;
  const mi = rows.mem[r]!;
  mem.deferred[mi]!.into(f.o.batch, rows.dp[r]!, mem, mi);
  f.device = mem.device[mi]!;
  f.host = mem.host[mi]!;
  f.share = mem.share[mi]!;
  f.floor = mem.floor[mi]!;
  f.start = mem.start[mi]!;
}

/** Whether the row fits the GPU option's memory and the node's host RAM; prunes it otherwise (unless `quiet`). */
function fitsMemory(L: Loop, f: RowFacts, r: number, h: number, quiet = false): boolean {
  const { st, lim, t } = L;
  const nl = t.nLevels[h]!;
  const capacity = t.capBytes[h]!;
  if (Number.isNaN(f.device)) deferredInto(L.ctx, r, f);
  // MXFP4 experts the engine upcasts to BF16 on this card (plan/mxfp4-upcast-fit.ts).
  const fw = ENGINE_PROFILES[f.engine].framework;
  const upcast = mxfp4UpcastBytes(L.ctx.arch, f.o, L.ctx.rows.dp[r]!, fw, L.ctx.hw[h]!.gpu);
  const device = onCapacity(f.device, f.share, f.floor, t.gpuBytes[h]!) + upcast;
  if (device > capacity && !poolAdmits(L, f, r, h)) {
    const score = device / capacity + f.count * 1e-6;
    if (!quiet) prune(st, REASON.oom, nl, r, h, 0, device - capacity, capacity, score);
    return false;
  }
  // A paged-pool server starts only where its pool fraction of the GPU holds its start budget, a colocated
  // vLLM only where its share holds its weights and one request.
  const gpu = t.gpuBytes[h]!;
  const short =
    f.start > 0 ? startShort(L, upcast > 0 ? { ...f, start: f.start + upcast } : f, r, gpu) : 0;
  if (short > 0) {
    if (!quiet) prune(st, REASON.oom, nl, r, h, 0, short - gpu, gpu, short / gpu + f.count * 1e-6);
    return false;
  }
  const nodeSize = t.nodeSizeOf[h]!;
  const perNode = f.count < nodeSize ? f.count : nodeSize;
  const hostNeed = hostRamPerNode(f.engine, f.zero, perNode, f.host, f.o.weights, lim.load);
  const hostLimit = hostRamLimit(lim.hostRamGiven, t.gpuBytes[h]!, perNode);
  if (hostNeed > hostLimit) {
    const score = hostNeed / hostLimit;
    if (!quiet) prune(st, REASON['host-ram'], nl, r, h, 0, hostNeed - hostLimit, hostLimit, score);
    return false;
  }
  return true;
}

/**
 * A serving row over the GPU option's capacity with every sequence resident that its engine still runs, admitting
 * what its KV pool holds and queueing the rest (tps-memo.ts admitsFromPool); timed at the pool's count (runningOn).
 */
function poolAdmits(L: Loop, f: RowFacts, r: number, h: number): boolean {
  const fw = FRAMEWORKS[ENGINE_PROFILES[f.engine].framework];
  if (L.lim.training || fw.kvCache !== 'paged-pool' || !fw.server) return false;
  const ft = rowTimingOf(L, r, f);
  return ft.tps !== null && admitsFromPool(ft.tps, L.ctx.arch, L.ctx.facts, L.ctx.hw[h]!.gpu);
}

/** The GPU memory a serving row would start on where a GPU of `gpu` bytes is short of it (0: it starts). */
function startShort(L: Loop, f: RowFacts, r: number, gpu: number): number {
  // A colocated vLLM starts within its share of the card (gpu_memory_utilization x the GPU).
  if (f.share > 0) return f.share * gpu >= f.start ? 0 : f.start / f.share;
  const fw = FRAMEWORKS[ENGINE_PROFILES[f.engine].framework];
  return poolStartShort(fw, f.start, gpu, L.ctx.rows.tp[r]!, L.ctx.rows.pp[r]!);
}

/**
 * Hours and tokens/s of a row on GPU option `h` of `t` at power level `l` (scratch: no allocation); a training
 * row's step is kept by rates object (row-step.ts).
 */
function timeAt(
  ctx: Ctx,
  lim: Limits,
  f: RowFacts,
  ft: RowTiming,
  t: HwTable,
  h: number,
  l: number,
  out: Timing,
  run: ServingMemo | null,
): void {
  const rate = t.rates[h * MAX_LEVELS + l]!;
  const rented = t.isRent[h] === 1;
  const spot = t.isSpot[h] === 1;
  if (ft.work || ft.objective) {
    const step = rowStep(ctx.facts, f, ft, rate, t.rateIds[h * MAX_LEVELS + l]!, t.gpuBytes[h]!);
    const perStep = ft.objective ? ft.objective.tokensPerStep : ft.work!.tokensPerStep;
    const hours = ((lim.totalTokens / perStep) * step) / 3600;
    out.tps = lim.totalTokens / (hours * 3600);
    const saves = spot ? spotSaveHours(hours, ft.trainable) : 0;
    out.hours = hours + saves + (rented ? ft.rentedOverhead : ft.ownedOverhead);
    return;
  }
  const job = ctx.s.job;
  // Per data-parallel rank (a replica, or a DP-attention engine's rank: time/expert-parallel.ts).
  // `run`: the sequences the GPU's KV pool holds, where fewer than the batch (the rest queue: tps-memo.ts runningOn).
  out.tps = memoTokensPerSecond(run!, ctx.facts, PLAN_DECODE_TIME, rate) * f.dp;
  out.hours = job.kind === 'inference' ? job.outputTokens / out.tps / 3600 : 0;
}

interface Timing {
  hours: number;
  tps: number;
}

/**
 * How far an inference plan misses the scenario's service level, as a fraction over its worst target (0 when
 * it meets them): time to first token and per output token (servingTime), and the requests per second the
 * replicas complete (each replica finishes `batch` requests per request latency: TTFT + output x TPOT).
 */
function sloMiss(
  ctx: Ctx,
  f: RowFacts,
  ft: RowTiming,
  rate: GpuRates,
  run: ServingMemo | null,
): number {
  const job = ctx.s.job;
  if (job.kind !== 'inference' || !hasServiceLevel(ctx)) return 0;
  const sv = servingTimeOf(ctx, ft, rate, run!);
  let miss = 0;
  if (job.slo?.ttftMs !== undefined) miss = Math.max(miss, (sv.ttft * 1000) / job.slo.ttftMs - 1);
  if (job.slo?.tpotMs !== undefined) miss = Math.max(miss, (sv.tpot * 1000) / job.slo.tpotMs - 1);
  if (job.requestsPerSecond !== undefined) {
    const out = ft.options.seq - promptTokensOf(ft.options);
    const perReplica = ft.options.batch / (sv.ttft + out * sv.tpot);
    miss = Math.max(miss, job.requestsPerSecond / (perReplica * f.dp) - 1);
  }
  return miss;
}

/**
 * A request's TTFT and TPOT as `estimate` gives them: where the KV pool runs fewer sequences than the batch
 * (`run` is not the row's own memo), those of the sequences that run, the wait of the queued ones in the TTFT
 * (time/pool-queue.ts queuedLatency).
 */
function servingTimeOf(
  ctx: Ctx,
  ft: RowTiming,
  rate: GpuRates,
  run: ServingMemo,
): { ttft: number; tpot: number } {
  const sv = memoServingTime(run, ctx.facts, PLAN_DECODE_TIME, rate);
  if (run === ft.tps) return sv;
  const q = queuedLatency(
    { ttftSeconds: sv.ttft, tpotSeconds: sv.tpot },
    ft.options,
    run.options.batch,
  );
  return { ttft: q.ttftSeconds, tpot: q.tpotSeconds };
}

/** Whether the scenario has a service level sloMiss reads (else it is 0 at every level). */
const hasServiceLevel = (ctx: Ctx): boolean =>
  ctx.s.job.kind === 'inference' &&
  (ctx.s.job.slo !== undefined || ctx.s.job.requestsPerSecond !== undefined);

/**
 * How far the row's GPU count on owned option `h` at level `l` draws over the largest circuit (<= 0: it fits):
 * a function of the option, level and count, computed once each (L.overCache). `wallPlanned`: L.wall already holds
 * that count and level's draw (evalLevels plans it for the cost), else it is planned here on a miss.
 */
function overAt(L: Loop, f: RowFacts, h: number, l: number, wallPlanned = false): number {
  const { ctx, lim, t, overCache, wall } = L;
  const ci = (h * MAX_LEVELS + l) * (lim.maxCount + 1) + f.count;
  let over = overCache[ci]!;
  if (Number.isNaN(over)) {
    if (!wallPlanned)
      planWallWatts(
        f.count,
        t.nodeSizeOf[h]!,
        t.boardW[h]! * ctx.levels[h]![l]!,
        ctx.s.power.systemDrawW,
        ctx.eff,
        wall,
      );
    over = overCache[ci] = circuitOverWatts(wall.full, wall.fullW, wall.lastW, ctx.caps);
  }
  return over;
}

/**
 * A bound before the row's timing: where every power level of the row on an owned option draws over the circuits
 * and no service level applies, evalLevels would prune each level as circuit-over after timing it, with figures
 * that read the watts only (an SLO miss, pruned first, is the one prune that reads the time). So each level is
 * pruned so here, in the same order and with the same figures, and the row's timing facts are not made for it.
 */
function overEveryCircuit(L: Loop, f: RowFacts, r: number, h: number): boolean {
  const { st, ctx, t } = L;
  if (t.isRent[h] === 1 || ctx.caps.length === 0 || hasServiceLevel(ctx)) return false;
  const levels = ctx.levels[h]!.length;
  for (let l = 0; l < levels; l++) if (!(overAt(L, f, h, l) > 0)) return false;
  const cap = ctx.caps[ctx.caps.length - 1]!;
  for (let l = 0; l < levels; l++) {
    st.seq++;
    const over = overAt(L, f, h, l);
    prune(st, REASON['circuit-over'], 1, r, h, l, over, cap, over);
  }
  return true;
}

/**
 * Whether the current row's Liger twin (L.twinRow) runs on GPU option `h` and fits it: the Liger row never needs more
 * memory, but the row without Liger may not fit where its twin does. The pair's first row met it already (its
 * hours, L.pairHours, where no other pair's first row came between); else it is checked here, its facts kept for
 * its own turn (runLoop).
 */
function twinOn(L: Loop, r: number, h: number): boolean {
  const p = L.twinRow;
  if (p < 0) return false;
  if (p < r && L.pairOf === p) return !Number.isNaN(L.pairHours[h * MAX_LEVELS]!);
  let tw = L.twinFacts.get(p);
  if (!tw) L.twinFacts.set(p, (tw = rowFactsOf(L.ctx, p)));
  return hardwareGate(L.t, tw, h) < 0 && fitsMemory(L, tw, p, h, true);
}

/**
 * Whether a candidate of `hours` on GPU option `h` at level `l` is slower than its Liger twin there (twinOn) by more
 * than the tie band (NEAR_TIE): then the twin's plan, same GPUs and watts and cheaper, stands for it.
 */
function slowerThanTwin(L: Loop, r: number, h: number, l: number, hours: number): boolean {
  const { ctx, lim, t } = L;
  const p = L.twinRow;
  if (p < r && L.pairOf === p) return L.pairHours[h * MAX_LEVELS + l]! * (1 + NEAR_TIE) < hours;
  const tw = L.twinFacts.get(p)!;
  if (!L.times.read(p, h, l, L.twinTm)) {
    const ft = rowTimingOf(L, p, tw);
    timeAt(ctx, lim, tw, ft, t, h, l, L.twinTm, null);
    L.times.write(p, h, l, L.twinTm);
  }
  return L.twinTm.hours * (1 + NEAR_TIE) < hours;
}

/** Every power level of a row on one GPU option: time, wall power, circuits, limits, then keep. */
function evalLevels(L: Loop, f: RowFacts, r: number, h: number): void {
  const { st, ctx, lim, t, tm, wall } = L;
  const s = ctx.s;
  const lv = ctx.levels[h]!;
  const rented = t.isRent[h] === 1;
  const nodeSize = t.nodeSizeOf[h]!;
  if (overEveryCircuit(L, f, r, h)) return;
  const ft = rowTimingOf(L, r, f);
  const twin = twinOn(L, r, h);
  const run = ft.tps
    ? runningOn(ft.tps, ctx.arch, ctx.facts, ctx.hw[h]!.gpu, PLAN_DECODE_TIME)
    : null;
  for (let l = 0; l < lv.length; l++) {
    st.seq++;
    // A pair's row timed as slowerThanTwin times it (no serving run): the time kept from its twin's turn, if any.
    const kept = run === null && L.twinRow >= 0;
    if (!kept || !L.times.read(r, h, l, tm)) {
      timeAt(ctx, lim, f, ft, t, h, l, tm, run);
      if (kept) L.times.write(r, h, l, tm);
    }
    const hours = tm.hours;
    if (L.twinRow > r) L.pairHours[h * MAX_LEVELS + l] = hours;
    const miss = sloMiss(ctx, f, ft, t.rates[h * MAX_LEVELS + l]!, run);
    if (miss > 0) {
      prune(st, REASON.slo, 1, r, h, l, miss, 1, 1 + miss);
      continue;
    }
    planWallWatts(f.count, nodeSize, t.boardW[h]! * lv[l]!, s.power.systemDrawW, ctx.eff, wall);
    if (!rented && ctx.caps.length > 0) {
      const over = overAt(L, f, h, l, true);
      if (over > 0) {
        prune(st, REASON['circuit-over'], 1, r, h, l, over, ctx.caps[ctx.caps.length - 1]!, over);
        continue;
      }
    }
    // Weights to make first: their GPU-hours on the plan's GPUs, billed as the job is (results.ts planCost) and
    // counted in the hours "x fastest" and limits.maxSlowdown read, as the ranking counts them (rankHours).
    const makeHours = f.makeGpuHours / f.count;
    const ranked = hours + makeHours;
    if (ranked < st.fastest) st.fastest = ranked;
    const cost = jobCostUsd(t.basis[h]!, ranked, f.count, wall.total, s.power);
    // The job starts once its weights are made: the deadline holds the ranked hours too.
    if (ranked > lim.deadline) {
      prune(st, REASON['over-deadline'], 1, r, h, l, ranked - lim.deadline, lim.deadline, ranked);
      continue;
    }
    if (cost > lim.budget) {
      prune(st, REASON['over-budget'], 1, r, h, l, cost - lim.budget, lim.budget, cost);
      continue;
    }
    if (ranked > lim.maxSlow * lim.fastestKnown) {
      const over = ranked / lim.fastestKnown - lim.maxSlow;
      prune(st, REASON['too-slow'], 1, r, h, l, over, lim.maxSlow, ranked);
      continue;
    }
    // Slower than its Liger twin past the tie band: a feasible candidate the twin's plan stands for (liger-twins.ts).
    if (twin && slowerThanTwin(L, r, h, l, hours)) {
      st.feasible++;
      continue;
    }
    const c = L.cand;
    c.cost = cost;
    c.hours = hours;
    c.makeHours = makeHours;
    c.watts = wall.total;
    c.tps = tm.tps;
    keepCandidate(L, r, h, l, f.count);
  }
}

/**
 * The search loop: every row (configuration x layout) on every GPU option and power level. Gates and
 * memory prune whole GPU options; time, power, circuits and limits prune single candidates.
 */
export function runLoop(ctx: Ctx, fastestKnown: number, keep: number): LoopState {
  const lim = limitsOf(ctx, fastestKnown, keep);
  const t = hwTableOf(ctx);
  const st = emptyLoopState(
    ctx.hw.length,
    // With weights to make first, cost also carries their GPU-hours, which (option x level, count, hours) does not tell.
    wattsTellCounts(ctx, t, lim.maxCount) && ctx.makeGpuHours.every((g) => g === 0)
      ? new CountedPlans(lim.maxCount)
      : new DistinctPlans(),
  );
  const L: Loop = {
    st,
    ctx,
    lim,
    t,
    overCache: new Float64Array(t.H * MAX_LEVELS * (lim.maxCount + 1)).fill(NaN),
    // Scratch, written before it is read: double fields from the start (core/double-field.ts).
    tm: { hours: DOUBLE_FIELD, tps: DOUBLE_FIELD },
    wall: { full: 0, fullW: DOUBLE_FIELD, lastW: DOUBLE_FIELD, total: DOUBLE_FIELD },
    keys: { k0: DOUBLE_FIELD, k1: DOUBLE_FIELD, k2: DOUBLE_FIELD },
    cand: {
      cost: DOUBLE_FIELD,
      hours: DOUBLE_FIELD,
      watts: DOUBLE_FIELD,
      tps: DOUBLE_FIELD,
      makeHours: DOUBLE_FIELD,
    },
    objectives: new ObjectiveWorks(ctx.bases),
    frees: freesOf(ctx),
    trainables: ctx.memo.trainables,
    twins: ligerTwinVariants(ctx.variants),
    twinFacts: new Map(),
    twinRow: -1,
    twinTm: { hours: DOUBLE_FIELD, tps: DOUBLE_FIELD },
    pairHours: new Float64Array(t.H * MAX_LEVELS),
    pairOf: -1,
    times: new TwinTimes(t.H),
    usedRates: t.nLevels.reduce((a, n) => a + n, 0),
  };
  const { onProgress, pause } = ctx.input;
  const rows = ctx.rows;
  for (let r = 0; r < rows.n; r++) {
    if (onProgress && (r & 2047) === 0) onProgress({ done: r, total: rows.n });
    if (pause && (r & 63) === 0) pause();
    const f = L.twinFacts.get(r) ?? rowFactsOf(ctx, r);
    // LoRA/QLoRA rows only: a full fine-tune's Liger twins are both ranked (Liger saves the logits' memory there).
    L.twinRow = f.o.method === 'full' ? -1 : twinRowOf(rows, L.twins, r);
    if (L.twinRow > r) {
      L.pairHours.fill(NaN);
      L.pairOf = r;
    }
    if (L.twinRow >= 0) {
      L.times.keep(r);
      L.times.keep(L.twinRow);
    }
    for (let h = 0; h < t.H; h++) {
      const nl = t.nLevels[h]!;
      st.candidates += nl;
      const gate = hardwareGate(t, f, h);
      if (gate >= 0) {
        st.reasons[gate] = st.reasons[gate]! + nl;
        continue;
      }
      if (!fitsMemory(L, f, r, h)) continue;
      evalLevels(L, f, r, h);
    }
    if (L.twinRow >= 0 && L.twinRow < r) {
      L.twinFacts.delete(r);
      L.twinFacts.delete(L.twinRow);
      L.times.drop(r);
      L.times.drop(L.twinRow);
    }
  }
  return st;
}

/**
 * Keep the Pareto front over (cost, hours, watts); hours are those a plan ranks on (rankHours: weights made first
 * included), which stand in for slowdown (same order).
 */
export function addFront(
  st: LoopState,
  row: number,
  hw: number,
  level: number,
  c: Objectives,
  seq: number,
) {
  const f = st.front;
  const { cost, watts } = c;
  const hours = rankHours(c);
  // Consecutive candidates are alike: the point that dominated the last one usually dominates this one.
  const slot = hw * MAX_LEVELS + level;
  const d = st.dominators[slot];
  if (d && d.cost <= cost && rankHours(d) <= hours && d.watts <= watts) return;
  const last = f[st.lastDominator];
  if (last && last.cost <= cost && rankHours(last) <= hours && last.watts <= watts) {
    st.dominators[slot] = last;
    return;
  }
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    if (p.cost <= cost && rankHours(p) <= hours && p.watts <= watts) {
      // Dominated or equal (earlier wins). The dominator moves up the list (halfway to the start) so
      // strong points are met first; the front is a set, sorted in finish(), so its order is free.
      const k = i >> 1;
      f[i] = f[k]!;
      f[k] = p;
      st.lastDominator = k;
      st.dominators[slot] = p;
      return;
    }
  }
  let j = 0;
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    if (!(cost <= p.cost && hours <= rankHours(p) && watts <= p.watts)) f[j++] = p;
  }
  f.length = j;
  f.push({
    row,
    hw,
    level,
    cost,
    hours: c.hours,
    watts,
    tokensPerSecond: c.tps,
    seq,
    variants: 0,
    ...(c.makeHours > 0 ? { makeHours: c.makeHours } : {}),
  });
}

/**
 * A feasible candidate: onto the Pareto front, and into the ranked top `keep` if it belongs there. A candidate
 * whose plan the distinct-plan count already holds repeats an earlier candidate's objectives, which the front
 * met: a point leaves the front only for one that dominates or equals it, so the front has one at least as good
 * and this one would not join it (most of a large search's feasible candidates are such repeats).
 */
export function keepCandidate(L: Loop, row: number, h: number, l: number, count = 0): void {
  const { st, lim, keys, cand: c } = L;
  st.feasible++;
  if (lim.keep === 0) return;
  const seq = st.seq;
  if (st.distinct.add(h * MAX_LEVELS + l, count, c.cost, c.hours, c.watts))
    addFront(st, row, h, l, c, seq);
  rankKeysInto(lim, c, keys);
  const top = st.top;
  if (top.length >= lim.keep && notBetterThanWorst(lim, top, keys) && keys.k0 > tieEdge(lim, top))
    return;
  if (foldedIntoKept(top, h, l, c)) return;
  const kept: Kept = {
    row,
    hw: h,
    level: l,
    cost: c.cost,
    hours: c.hours,
    watts: c.watts,
    tokensPerSecond: c.tps,
    seq,
    variants: 0,
    ...(c.makeHours > 0 ? { makeHours: c.makeHours } : {}),
  };
  top.splice(rankedSlot(lim, top, keys), 0, kept);
  trimPastTies(lim, top);
}
