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

/** A plan's time estimate and its slowdown factors (results.ts materialize). */
export interface PlanTiming {
  t: TimeResult;
  factors: SlowdownFactor[];
}

export interface ViewMemo {
  /**
   * Memory surfaces' estimates by the surface's options (JSON), for surfaces whose estimates read their options
   * and the model only (no GRPO points, no memory twins: rows.ts surfaceOf). Each surface still counts the
   * estimates it asks for (memory/surface.ts AlikeEstimates), so `searched.memoryEvaluations` is a fresh plan's.
   */
  surfaces: Map<string, AlikeEstimates>;
  /** A plan's memory estimate on a GPU by its options (JSON): results.ts planEstimate. */
  estimates: WeakMap<Gpu, Map<string, MemoryEstimate>>;
  /** A plan's timing on a GPU by its options, time options, pool and paged spill (JSON): results.ts planTiming. */
  timings: WeakMap<Gpu, Map<string, PlanTiming>>;
}

export const newViewMemo = (): ViewMemo => ({
  surfaces: new Map(),
  estimates: new WeakMap(),
  timings: new WeakMap(),
});

/**
 * Entries one table keeps before it starts again (a bound on a long session's memory, not a figure of the
 * model: a few views of the largest shipped scenario's ranked plans and surfaces fit well within it).
 */
const MAX_ENTRIES = 20_000;

/** `table`'s value for `key`, made by `make` on a miss (the table emptied first when it is full). */
export function keptOr<V>(table: Map<string, V>, key: string, make: () => V): V {
  let v = table.get(key);
  if (v === undefined) {
    if (table.size >= MAX_ENTRIES) table.clear();
    table.set(key, (v = make()));
  }
  return v;
}

/** The table of `gpu` in `byGpu`, made empty on first use. */
export function gpuTable<V>(byGpu: WeakMap<Gpu, Map<string, V>>, gpu: Gpu): Map<string, V> {
  let t = byGpu.get(gpu);
  if (!t) byGpu.set(gpu, (t = new Map()));
  return t;
}
