/** Exact per-GPU memory over micro-batch and data-parallel degree from a handful of estimates (planner). */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS, type FrameworkProfile } from './frameworks.js';
import {
  deviceBytesOf,
  estimateMemory,
  type EstimateContext,
  type MemoryEstimate,
  type StageSummary,
} from './memory.js';

/** A component as A + B/dp + C·batch. */
type Plane = { a: number; b: number; c: number };

/** The columns `into` writes. */
type SurfaceColumns = Parameters<MemorySurface['into']>[2];

// f(1,2) = A + B/2 + C, f(1,4) = A + B/4 + C, f(2,2) = A + B/2 + 2C
function plane(f12: number, f14: number, f22: number): Plane {
  const b = 4 * (f12 - f14);
  const c = f22 - f12;
  return { a: f12 - b / 2 - c, b, c };
}

// f(1,1) = A + C, f(2,1) = A + 2C
const line = (f11: number, f21: number): Plane => ({ a: 2 * f11 - f21, b: 0, c: f21 - f11 });

const ev = (p: Plane, batch: number, dp: number) => p.a + p.b / dp + p.c * batch;

/** Per stage: each phase, the transient block, paged states, host, weights and KV as planes or lines. */
type StageFit = {
  phases: Plane[];
  transient: Plane;
  paged: Plane;
  host: Plane;
  weights: Plane;
  kv: Plane;
};

function stageFits(es: MemoryEstimate[], fitOf: (v: number[]) => Plane): StageFit[] {
  return es[0]!.stages.map((_, si) => {
    const of = (get: (st: StageSummary) => number) => fitOf(es.map((e) => get(e.stages[si]!)));
    return {
      phases: es[0]!.stages[si]!.phaseAllocated.map((__, pi) => of((st) => st.phaseAllocated[pi]!)),
      transient: of((st) => st.transient),
      paged: of((st) => st.paged),
      host: of((st) => st.host),
      weights: of((st) => st.weights),
      kv: of((st) => st.kv),
    };
  });
}

/** The worst stage at (batch, dp): the largest device bytes (first on ties), as in estimateMemory. */
function worstInto(
  fw: FrameworkProfile,
  stages: StageFit[],
  batch: number,
  dp: number,
  out: SurfaceColumns,
  i: number,
): void {
  let best = stages[0]!;
  let bestDevice = -Infinity;
  // Indexed loops: this runs once per planner row, mostly before the JIT has optimized it.
  for (let s = 0; s < stages.length; s++) {
    const st = stages[s]!;
    let alloc = 0;
    for (let k = 0; k < st.phases.length; k++)
      alloc = Math.max(alloc, ev(st.phases[k]!, batch, dp));
    const device = deviceBytesOf(fw, alloc, ev(st.transient, batch, dp), ev(st.paged, batch, dp));
    if (device > bestDevice) {
      bestDevice = device;
      best = st;
    }
  }
  out.device[i] = Math.round(bestDevice);
  out.host[i] = Math.round(ev(best.host, batch, dp));
  out.weights[i] = Math.round(ev(best.weights, batch, dp));
  out.kv[i] = Math.round(ev(best.kv, batch, dp));
}

/**
 * Memory against micro-batch and data-parallel degree from five estimates. With the sequence fixed, each
 * phase's allocation is A + B/dp + C·batch (saved activations, loss tensors and the largest transient
 * block grow with the tokens of a micro-batch; sharded states divide by dp; the two never multiply), so
 * (batch, dp) = (1,2), (1,4), (2,2) give the dp >= 2 plane and (1,1), (2,1) the dp = 1 line.
 */
export function memorySurface(
  arch: Arch,
  o: EstimateOptions,
  ctx: EstimateContext = {},
): MemorySurface {
  const fw = FRAMEWORKS[o.framework];
  let evaluations = 0;
  const at = (batch: number, dp: number) => {
    evaluations++;
    return estimateMemory(arch, { ...o, batch, gpus: dp * o.tp * o.pp }, { ...ctx, lean: true });
  };
  // Evaluated lazily: a single-GPU search never needs the dp >= 2 plane, nor a cluster search the dp = 1 line.
  // Only the fitted planes are kept (the estimates are dropped once fitted: a search makes thousands).
  let manyFits: StageFit[] | null = null;
  let oneFits: StageFit[] | null = null;
  const fitsFor = (dp: number): StageFit[] =>
    dp <= 1
      ? (oneFits ??= stageFits([at(1, 1), at(2, 1)], ([f11, f21]) => line(f11!, f21!)))
      : (manyFits ??= stageFits([at(1, 2), at(1, 4), at(2, 2)], ([f12, f14, f22]) =>
          plane(f12!, f14!, f22!),
        ));
  return {
    get evaluations() {
      return evaluations;
    },
    into(batch, dp, out, i) {
      if (fw.kvCache === 'paged-pool') {
        // Chunked prefill caps the activations at one chunk: not linear in batch, so estimated directly
        // (serving rows are few: one per replica layout).
        const e = at(batch, dp);
        const st = e.stages.find((x) => x.stage === e.worstStage)!;
        out.device[i] = e.perGpu.deviceBytes;
        out.host[i] = e.hostBytesPerGpu;
        out.weights[i] = Math.round(st.weights);
        out.kv[i] = Math.round(st.kv);
        return;
      }
      worstInto(fw, fitsFor(dp), batch, dp, out, i);
    },
    at(batch, dp) {
      const out = {
        device: new Float64Array(1),
        host: new Float64Array(1),
        weights: new Float64Array(1),
        kv: new Float64Array(1),
      };
      this.into(batch, dp, out, 0);
      return {
        deviceBytes: out.device[0]!,
        hostBytes: out.host[0]!,
        weightBytes: out.weights[0]!,
        kvBytes: out.kv[0]!,
      };
    },
  };
}

/** Per-GPU memory of one configuration (sequence fixed) at any micro-batch and data-parallel degree. */
export interface MemorySurface {
  /** estimateMemory calls made so far (two for dp = 1, three for dp >= 2, on first use). */
  readonly evaluations: number;
  /** Write the four figures of `at` into row `i` of typed arrays (the planner's allocation-free path). */
  into(
    batch: number,
    dp: number,
    out: { device: Float64Array; host: Float64Array; weights: Float64Array; kv: Float64Array },
    i: number,
  ): void;
  at(
    batch: number,
    dp: number,
  ): { deviceBytes: number; hostBytes: number; weightBytes: number; kvBytes: number };
}
