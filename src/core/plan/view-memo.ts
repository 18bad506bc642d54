/**
 * What a re-planning host keeps across the views of one model (model-side.ts recentModelSides): figures that are
 * pure functions of the model, a configuration's options and a GPU, which another view of the same model (a GPU
 * count, a limit, a sequence length changed) asks for again. Filed by content (the options' JSON), so a view
 * finds what an earlier one made whatever its rows' indices. Only a host that passes `recent` gets one; a
 * single `plan` makes its figures as before.
 */
import type { Gpu } from '../../schema/gpu.js';
import type { AlikeEstimates } from '../memory/surface.js';
import type { MemoryEstimate } from '../memory/memory.js';
import type { TimeResult } from '../time/estimate-time.js';
import type { SlowdownFactor } from '../time/slowdown.js';
import type { BaseConfig, Variant } from './configs.js';
import type { SearchMemo } from './search-memo.js';

/** A plan's time estimate and its slowdown factors (results.ts materialize). */
export interface PlanTiming {
  t: TimeResult;
  factors: SlowdownFactor[];
}

export interface ViewMemo {
  /**
   * Memory surfaces' estimates by the surface's options (JSON; memory twins' by their options less the micro-batch
   * and attention: memory-twins.ts twinEstimates), for surfaces whose estimates read their options and the model
   * only (no GRPO points: rows.ts surfaceOf). Each surface still counts the estimates it asks for
   * (memory/surface.ts AlikeEstimates), so `searched.memoryEvaluations` is a fresh plan's.
   */
  surfaces: Map<string, AlikeEstimates>;
  /** A plan's memory estimate on a GPU by its options (JSON): results.ts planEstimate. */
  estimates: WeakMap<Gpu, Map<string, MemoryEstimate>>;
  /** A plan's timing on a GPU by its options, time options, pool and paged spill (JSON): results.ts planTiming. */
  timings: WeakMap<Gpu, Map<string, PlanTiming>>;
  /** The search memos of the last model sides made, with the configurations and variants they index (searchMemoOf). */
  searches: { bases: readonly BaseConfig[]; variants: readonly Variant[]; memo: SearchMemo }[];
}

export const newViewMemo = (): ViewMemo => ({
  surfaces: new Map(),
  estimates: new WeakMap(),
  timings: new WeakMap(),
  searches: [],
});

/** Search memos kept (searchMemoOf): as many as a re-planning host keeps model sides. */
const SEARCHES_KEPT = 4;

/** Whether two plain-data values are equal: the same keys with equal values, arrays element by element. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(y, k) || !sameData(x[k], y[k])) return false;
    n++;
  }
  for (const k in y) if (Object.hasOwn(y, k)) n--;
  return n === 0;
}

/**
 * The search memo (search-memo.ts) of a new model side with `bases` and `variants`: an earlier view's where its
 * configurations' options and engine variants are equal one for one (a GPU-count edit past the first), else a
 * new one, kept. Its entries are filed by configuration and variant index and by the search's time options, and
 * made from the row's options (its configuration's, the layout's and the engine's), so equal lists file equal
 * figures under equal keys.
 */
export function searchMemoOf(
  views: ViewMemo,
  bases: readonly BaseConfig[],
  variants: readonly Variant[],
  make: () => SearchMemo,
): SearchMemo {
  const same = (e: ViewMemo['searches'][number]) =>
    e.bases.length === bases.length &&
    sameData(e.variants, variants) &&
    e.bases.every((b, i) => sameData(b.options, bases[i]!.options));
  const i = views.searches.findIndex(same);
  const kept = i >= 0 ? views.searches.splice(i, 1)[0]! : { bases, variants, memo: make() };
  views.searches.unshift(kept);
  if (views.searches.length > SEARCHES_KEPT) views.searches.length = SEARCHES_KEPT;
  return kept.memo;
}

/** The table of `gpu` in `byGpu`, made empty on first use. */
export function gpuTable<V>(byGpu: WeakMap<Gpu, Map<string, V>>, gpu: Gpu): Map<string, V> {
  let t = byGpu.get(gpu);
  if (!t) byGpu.set(gpu, (t = new Map()));
  return t;
}
