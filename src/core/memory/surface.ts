/** Exact per-GPU memory over micro-batch and data-parallel degree from a handful of estimates (planner). */
import { isPreferenceOrRl } from '../../schema/estimate.js';
import { rollsOut } from '../../schema/objectives.js';
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS, type FrameworkProfile } from './frameworks.js';
import {
  objectiveFigures,
  policyOptions,
  policyOptionsInto,
  serverGpus,
  type ObjectiveExtras,
  type PolicyMemory,
} from './objective.js';
import {
  deviceBytesOf,
  estimateMemory,
  policyMemo,
  type EstimateContext,
  type MemoryEstimate,
  type StageSummary,
} from './memory.js';
import { fitDeviceBytes, fitHostBytes } from './paged.js';
import { setupOf } from './setup.js';
import { fusedLossRows } from './training.js';

/** A GRPO surface's figures at one (batch, dp) point (what exactInto writes). */
interface Point {
  device: number;
  host: number;
  weights: number;
  kv: number;
  floor: number;
  /** vllm-colocate: what vLLM's share must hold to start (ObjectiveExtras.rolloutStart). */
  start: number;
}

/** The columns `into` writes. */
type SurfaceColumns = Parameters<MemorySurface['into']>[2];

/**
 * A surface's fitted components, packed (the planner reads one per row, mostly before the JIT has optimized
 * it, so plain numbers in one typed array): [stage count, then per stage: phase count, each phase's
 * (A, B, C), then the transient block's, the paged states', host's, weights' and KV's], every component
 * as A + B/dp + C·batch.
 */
type Fit = Float64Array;

/** A fitted component's three coefficients from its values at the sample points. */
type Fitter = (values: readonly number[], out: Fit, k: number) => void;

// From micro-batch b0: f(b0,2) = A + B/2 + C·b0, f(b0,4) = A + B/4 + C·b0, f(b0+1,2) = A + B/2 + C·(b0+1)
const planeAt =
  (b0: number): Fitter =>
  ([f12, f14, f22], out, k) => {
    const b = 4 * (f12! - f14!);
    const c = f22! - f12!;
    out[k] = f12! - b / 2 - c * b0;
    out[k + 1] = b;
    out[k + 2] = c;
  };

// From micro-batch b0: f(b0,1) = A + C·b0, f(b0+1,1) = A + C·(b0+1)
const lineAt =
  (b0: number): Fitter =>
  ([f11, f21], out, k) => {
    out[k] = f11! - (f21! - f11!) * b0;
    out[k + 1] = 0;
    out[k + 2] = f21! - f11!;
  };

/**
 * The micro-batch from which a fused loss's chunk stops growing: its fp32 logits chunk is min(tokens, rows)
 * (training.ts fusedLossChunk), linear below the knee and constant above it, so one fit holds on each side and
 * none across. 1 (one fit) where the engine fuses no capped loss or one sample already fills the chunk.
 */
function lossKnee(arch: Arch, o: EstimateOptions, ctx: EstimateContext): number {
  if (FRAMEWORKS[o.framework].loss.fusedChunkFp32Bytes === undefined) return 1;
  const s = setupOf(arch, { ...o, batch: 1, gpus: o.tp * o.pp }, ctx);
  const rows = fusedLossRows(s);
  return rows === null ? 1 : Math.max(1, rows / s.tokens);
}

/** The component at offset `k` of a fit, at (batch, dp). */
const ev = (f: Fit, k: number, batch: number, dp: number) =>
  f[k]! + f[k + 1]! / dp + f[k + 2]! * batch;

/**
 * Components after a stage's phases: the batch-scaled transient, paged, host, weights, KV, the step's transient.
 * The stage's transient is the larger of the first and the last (StageSummary.batchTransient, stepTransient):
 * each is linear in batch and 1/dp, their max is not (a fit across the batch where one overtakes the other
 * under-estimates every larger batch).
 */
const TAIL = 6;

/** Every stage's components fitted from the estimates at the sample points (packed: see Fit). */
function fitOf(es: readonly MemoryEstimate[], fit: Fitter): Fit {
  const stages = es[0]!.stages;
  const size = 1 + stages.reduce((n, st) => n + 1 + 3 * (st.phaseAllocated.length + TAIL), 0);
  const out = new Float64Array(size);
  out[0] = stages.length;
  let k = 1;
  const put = (get: (st: StageSummary) => number, si: number) => {
    fit(
      es.map((e) => get(e.stages[si]!)),
      out,
      k,
    );
    k += 3;
  };
  stages.forEach((st, si) => {
    out[k++] = st.phaseAllocated.length;
    st.phaseAllocated.forEach((_, pi) => put((x) => x.phaseAllocated[pi]!, si));
    for (const get of [
      (x: StageSummary) => x.batchTransient,
      (x: StageSummary) => x.paged,
      (x: StageSummary) => x.host,
      (x: StageSummary) => x.weights,
      (x: StageSummary) => x.kv,
      (x: StageSummary) => x.stepTransient,
    ])
      put(get, si);
  });
  return out;
}

/** The worst stage at (batch, dp): the largest device bytes (first on ties), as in estimateMemory. */
function worstInto(
  fw: FrameworkProfile,
  fit: Fit,
  batch: number,
  dp: number,
  out: SurfaceColumns,
  i: number,
): void {
  let bestDevice = -Infinity;
  let best = 0; // offset of the worst stage's host component
  let k = 1;
  for (let s = fit[0]!; s > 0; s--) {
    const phases = fit[k++]!;
    let alloc = 0;
    for (let p = 0; p < phases; p++, k += 3) alloc = Math.max(alloc, ev(fit, k, batch, dp));
    const transient = Math.max(ev(fit, k, batch, dp), ev(fit, k + 15, batch, dp));
    const device = deviceBytesOf(fw, alloc, transient, ev(fit, k + 3, batch, dp));
    if (device > bestDevice) {
      bestDevice = device;
      best = k + 6;
    }
    k += 3 * TAIL;
  }
  out.device[i] = Math.round(bestDevice);
  out.host[i] = Math.round(ev(fit, best, batch, dp));
  out.weights[i] = Math.round(ev(fit, best + 3, batch, dp));
  out.kv[i] = Math.round(ev(fit, best + 6, batch, dp));
}

/**
 * Scratch options for one surface's GRPO points, rewritten per point (grpoPoint): the point's options, its
 * policy's (policyOptions) and the rollout's generation (objective.ts rolloutBytes). Nothing keeps them
 * (the estimates made from them hold numbers only), so a point allocates no options object.
 */
interface PointScratch {
  op: EstimateOptions;
  po: EstimateOptions;
  gen: EstimateOptions;
}

/** `o`'s scratch, with a stepsPerGeneration key (a key added to a copy later is slow: plan/grow-copy.ts). */
function pointScratch(o: EstimateOptions, policyBase: EstimateOptions): PointScratch {
  return {
    op: { ...o, stepsPerGeneration: o.stepsPerGeneration },
    po: { ...policyBase },
    gen: { ...policyBase },
  };
}

/** GRPO's figures at one point: withObjective's, without building its estimate (objective.ts objectiveFigures). */
function grpoPoint(
  arch: Arch,
  o: EstimateOptions,
  leanCtx: EstimateContext,
  policy: PolicyMemory,
  sc: PointScratch,
  batch: number,
  dp: number,
  globalBatch: number | undefined,
): Point {
  const gpus = dp * o.tp * o.pp + serverGpus(o);
  // The accumulation that keeps the job's global batch (plan/shape-table.ts shapeTableOf) is TRL's
  // steps_per_generation.
  const spg = globalBatch === undefined ? 1 : Math.max(1, Math.ceil(globalBatch / (batch * dp)));
  const op = sc.op;
  op.batch = batch;
  op.gpus = gpus;
  op.stepsPerGeneration = spg > 1 ? spg : o.stepsPerGeneration;
  const fw = FRAMEWORKS[o.framework];
  const f = objectiveFigures(arch, op, leanCtx, fw, policy, policyOptionsInto(sc.po, op), sc.gen);
  const m = f.policy;
  const st = worstSummary(m);
  return {
    device: f.deviceBytes,
    host: m.hostBytesPerGpu,
    weights: Math.round(st.weights),
    kv: Math.round(st.kv),
    floor: f.rolloutFloor,
    start: f.rolloutStart,
  };
}

/** The estimate's worst stage's summary (a loop, not `find` with a closure: one per GRPO point). */
function worstSummary(m: MemoryEstimate): StageSummary {
  const stages = m.stages;
  for (let i = 0; i < stages.length; i++) if (stages[i]!.stage === m.worstStage) return stages[i]!;
  return undefined as unknown as StageSummary;
}

/** GRPO points shared by the surfaces of one search (memorySurface's `shared`), by pointClass, then point. */
export type GrpoPoints = Map<string, Map<number, Point>>;

/**
 * The options a GRPO point reads, as a key: `o` less the vLLM server's GPU count (its GPUs are apart from the
 * trainers', whose count is trainingGpus: every figure of a point is a trainer GPU's) and, without a GPU
 * capacity, less vLLM's colocated share (rolloutBytes then sizes the pool at the least it runs with; the share
 * is the surface's `share` column instead). Options alike but for these share their points.
 */
export function pointClass(o: EstimateOptions, ctx: EstimateContext): string {
  // JSON leaves out keys whose value is undefined: the same string as `o` without them.
  return JSON.stringify({
    ...o,
    rolloutGpus: undefined,
    rolloutMemory: ctx.gpuCapacityBytes === undefined ? undefined : o.rolloutMemory,
  });
}

/** The points of one pointClass in `shared` (made empty on first use). */
function classPoints(shared: GrpoPoints, key: string): Map<number, Point> {
  let m = shared.get(key);
  if (!m) shared.set(key, (m = new Map()));
  return m;
}

/**
 * Estimates shared by the surfaces of options that estimate alike at every micro-batch and GPU count (the planner's
 * serving configurations that differ only in flash or SDPA attention: inference.ts attentionAlike): the exact
 * estimates by (batch, dp), and the fits by fitCache's key with the estimates each took. Each surface still counts
 * the estimates it asks for, shared or not (its `evaluations`: the search's memory evaluations are unchanged).
 */
export interface AlikeEstimates {
  exact: Map<number, MemoryEstimate>;
  fits: Map<number, { fit: Fit; estimates: number }>;
}

/** An empty AlikeEstimates (a surface of its own: nothing shared). */
export const alikeEstimates = (): AlikeEstimates => ({ exact: new Map(), fits: new Map() });

/**
 * A surface's fits, each made on first use: by the micro-batch b0 it starts from and dp = 1 or not. b0 = 1
 * unless a fused loss's knee lies above one sample and the batch is at or past it (lossKnee). A fit `alike` holds
 * already is counted (`count`, its estimates) instead of made again.
 */
function fitCache(
  knee: () => number,
  at: (batch: number, dp: number) => MemoryEstimate,
  alike: AlikeEstimates['fits'],
  count: (estimates: number) => void,
): (batch: number, dp: number) => Fit {
  const fits = new Map<number, Fit>();
  let k = 0;
  return (batch, dp) => {
    if (k === 0) k = knee();
    const b0 = batch >= k ? Math.ceil(k) : 1;
    const key = b0 * 2 + (dp <= 1 ? 1 : 0);
    let f = fits.get(key);
    if (!f) {
      const kept = alike.get(key);
      if (kept) {
        count(kept.estimates);
        f = kept.fit;
      } else {
        f =
          dp <= 1
            ? fitOf([at(b0, 1), at(b0 + 1, 1)], lineAt(b0))
            : fitOf([at(b0, 2), at(b0, 4), at(b0 + 1, 2)], planeAt(b0));
        alike.set(key, { fit: f, estimates: dp <= 1 ? 2 : 3 });
      }
      fits.set(key, f);
    }
    return f;
  };
}

/** `at`, or the estimate `exact` holds for (batch, dp), counted (`count`) as one asked for. */
function sharedExact(
  exact: AlikeEstimates['exact'],
  at: (batch: number, dp: number) => MemoryEstimate,
  count: (estimates: number) => void,
): (batch: number, dp: number) => MemoryEstimate {
  return (batch, dp) => {
    const key = batch * 1_048_576 + dp;
    let e = exact.get(key);
    if (e === undefined) exact.set(key, (e = at(batch, dp)));
    else count(1);
    return e;
  };
}

/**
 * Memory against micro-batch and data-parallel degree from five estimates. With the sequence fixed, each
 * phase's allocation is A + B/dp + C·batch (saved activations, loss tensors and the largest transient
 * block grow with the tokens of a micro-batch; sharded states divide by dp; the two never multiply), so
 * (batch, dp) = (1,2), (1,4), (2,2) give the dp >= 2 plane and (1,1), (2,1) the dp = 1 line. A fused loss
 * whose chunk stops growing above one sample (lossKnee) bends that line: batches from its knee b0 take a
 * second fit from (b0,2), (b0,4), (b0+1,2) and (b0,1), (b0+1,1), up to five estimates more. `policy`:
 * the preference / RL policy estimates, shared between surfaces (memory.ts policyMemo). `globalBatch`: a
 * fine-tune's samples per optimizer step (GRPO generates batch x accumulation completions per process).
 * `shared`: GRPO points of the search's other surfaces (on `arch` with this `globalBatch`), so that rollout
 * configurations a point does not tell apart (pointClass) are estimated once; `pointKey`: the caller's key for
 * `o`'s pointClass, where it has one (equal keys only for options of equal pointClass); `alike`: the estimates of
 * surfaces whose options estimate as `o` does at every micro-batch and GPU count.
 */
export function memorySurface(
  arch: Arch,
  o: EstimateOptions,
  ctx: EstimateContext = {},
  policies: (o: EstimateOptions) => PolicyMemory = policyMemo(arch),
  globalBatch?: number,
  shared: GrpoPoints = new Map(),
  pointKey?: string,
  alike: AlikeEstimates = alikeEstimates(),
): MemorySurface {
  const fw = FRAMEWORKS[o.framework];
  const policy = isPreferenceOrRl(o) ? policies(o) : undefined;
  const policyBase = rollsOut(o) ? policyOptions(o) : undefined;
  const leanCtx = { ...ctx, lean: true };
  let evaluations = 0;
  const at = (batch: number, dp: number) => {
    evaluations++;
    // GRPO server mode: the vLLM server's GPUs beside the dp x tp x pp that train.
    const gpus = dp * o.tp * o.pp + serverGpus(o);
    return estimateMemory(arch, { ...o, batch, gpus }, leanCtx, policy);
  };
  const colocated = o.rollout === 'vllm-colocate' ? (o.rolloutMemory ?? 0) : 0;
  // Evaluated lazily: a single-GPU search never needs the dp >= 2 plane, nor a cluster search the dp = 1 line.
  // Only the fits are kept (the estimates are dropped once fitted: a search makes thousands).
  const points = rollsOut(o)
    ? classPoints(shared, pointKey ?? pointClass(o, ctx))
    : new Map<number, Point>();
  // GRPO points asked for (defer or into), estimated or not: each counts as one estimate.
  const asked = new Set<number>();
  let scratch: PointScratch | null = null;
  const exact = (batch: number, dp: number): Point => {
    const key = batch * 1_048_576 + dp;
    asked.add(key);
    let e = points.get(key);
    if (!e)
      points.set(
        key,
        (e = grpoPoint(
          arch,
          o,
          leanCtx,
          policy!,
          (scratch ??= pointScratch(o, policyBase!)),
          batch,
          dp,
          globalBatch,
        )),
      );
    return e;
  };
  const count = (n: number) => (evaluations += n);
  const fitFor = fitCache(() => lossKnee(arch, o, leanCtx), at, alike.fits, count);
  const exactAt = sharedExact(alike.exact, at, count);
  return {
    get evaluations() {
      return evaluations + asked.size;
    },
    defer(batch, dp) {
      if (!rollsOut(o)) return false;
      asked.add(batch * 1_048_576 + dp);
      return true;
    },
    into(batch, dp, out, i) {
      if (out.share) out.share[i] = colocated;
      if (rollsOut(o)) {
        // GRPO's generation batch is batch x accumulation sequences per process (memory/objective.ts
        // stepsPerGeneration): not linear in batch and dp, so estimated directly (cached per point).
        pointInto(exact(batch, dp), out, i);
        return;
      }
      if (fw.kvCache === 'paged-pool') {
        // Chunked prefill caps the activations at one chunk: not linear in batch, so estimated directly
        // (serving rows are few: one per replica layout).
        exactInto(exactAt(batch, dp), out, i);
        return;
      }
      worstInto(fw, fitFor(batch, dp), batch, dp, out, i);
    },
    at(batch, dp) {
      return oneAt(this, batch, dp);
    },
  };
}

/** One (batch, dp)'s figures of a surface, through its `into` (tests and callers that ask for one point). */
function oneAt(s: MemorySurface, batch: number, dp: number): ReturnType<MemorySurface['at']> {
  const out = {
    device: new Float64Array(1),
    host: new Float64Array(1),
    weights: new Float64Array(1),
    kv: new Float64Array(1),
  };
  s.into(batch, dp, out, 0);
  return {
    deviceBytes: out.device[0]!,
    hostBytes: out.host[0]!,
    weightBytes: out.weights[0]!,
    kvBytes: out.kv[0]!,
  };
}

/** One GRPO point's figures into row `i`. */
function pointInto(p: Point, out: SurfaceColumns, i: number): void {
  out.device[i] = p.device;
  out.host[i] = p.host;
  out.weights[i] = p.weights;
  out.kv[i] = p.kv;
  if (out.floor) out.floor[i] = p.floor;
  if (out.start) out.start[i] = p.start;
}

/** One estimate's figures into row `i` (its worst stage's weights and KV). */
function exactInto(e: MemoryEstimate, out: SurfaceColumns, i: number): void {
  const st = e.stages.find((x) => x.stage === e.worstStage)!;
  // The search checks the fit figure: paged optimizer states count only their working set on the device.
  out.device[i] = fitDeviceBytes(e);
  out.host[i] = fitHostBytes(e);
  out.weights[i] = Math.round(st.weights);
  out.kv[i] = Math.round(st.kv);
  // estimateMemory returns withObjective's estimate, with its extras, for preference / RL options.
  const x = (e as { objective?: ObjectiveExtras }).objective;
  if (out.start) out.start[i] = e.poolStartBudget ?? x?.rolloutStart ?? 0;
  if (out.floor) out.floor[i] = x?.rolloutFloor ?? 0;
}

/** Per-GPU memory of one configuration (sequence fixed) at any micro-batch and data-parallel degree. */
export interface MemorySurface {
  /** estimateMemory calls made so far (two for dp = 1, three for dp >= 2, on first use). */
  readonly evaluations: number;
  /**
   * Whether the row at (batch, dp) may be written later (GRPO: estimated point by point, so a row the search
   * never reads costs nothing); it counts in `evaluations` either way. False: write it now.
   */
  defer(batch: number, dp: number): boolean;
  /** Write the four figures of `at` into row `i` of typed arrays (the planner's allocation-free path). */
  into(
    batch: number,
    dp: number,
    out: {
      device: Float64Array;
      host: Float64Array;
      weights: Float64Array;
      kv: Float64Array;
      /** GRPO vllm-colocate: vLLM's share of the GPU and the least it holds (rolloutDeviceBytes). */
      share?: Float64Array;
      floor?: Float64Array;
      /**
       * Serving: what the engine's pool budget must hold to start (MemoryEstimate.poolStartBudget); GRPO
       * vllm-colocate: what vLLM's share must hold (ObjectiveExtras.rolloutStart); 0: none.
       */
      start?: Float64Array;
    },
    i: number,
  ): void;
  at(
    batch: number,
    dp: number,
  ): { deviceBytes: number; hostBytes: number; weightBytes: number; kvBytes: number };
}

/**
 * Device bytes of a row on a GPU of `capacity` bytes: a colocated vLLM fills its share of the card
 * (gpu_memory_utilization), so the share adds max(0, share x capacity - floor) beyond the surface's figure
 * (memory/objective.ts rolloutBytes); every other row is the surface's figure.
 */
export const onCapacity = (device: number, share: number, floor: number, capacity: number) =>
  share > 0 ? device + Math.max(0, share * capacity - floor) : device;
