/** The search loop's memo kept with a model side (model-side.ts); apart from context.ts, so no import cycle. */
import type { CountFreeWork } from '../time/train-work.js';

/**
 * What the search loop makes from a model side alone (loop.ts), kept with the model side (model-side.ts) so that
 * every search on it (a second pass under limits.maxSlowdown, a fleet's per-source searches, a re-plan on a kept
 * model side) makes it once. Caches of pure functions of the model side's rows and the key they are filed under.
 */
export interface SearchMemo {
  /** Training rows' CountFreeWork by countFreeKey, per search time options less grad-accum (loop.ts freesOf). */
  frees: Map<string, Map<number, CountFreeWork>>;
  /** Training rows' trainable parameters by configuration and engine variant (loop.ts trainableOf). */
  trainables: Map<number, number>;
  /**
   * Engine verdicts of layout shapes (rows.ts forEachRunnable), by the scenario's accepted quality and
   * undocumented opt-in (the two things of the scenario they read), then by launch group and shape slot. A
   * memo is shared only by model sides whose configurations and engine variants are equal one for one
   * (view-memo.ts searchMemoOf), so their launch groups are too, index by index.
   */
  verdicts: Map<string, ShapeVerdicts[]>;
}

/**
 * A launch group's verdicts by shape slot (rows.ts layoutVariants; -1 where none was made yet) and the engine
 * variants that run each shape.
 */
export interface ShapeVerdicts {
  verdict: Int8Array;
  run: number[][];
}

export const newSearchMemo = (): SearchMemo => ({
  frees: new Map(),
  trainables: new Map(),
  verdicts: new Map(),
});
