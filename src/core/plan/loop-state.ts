/** A search loop's empty state, and whether its distinct plans can be counted by GPU count (loop.ts runLoop). */
import { planWallWatts, type NodeWatts } from '../hardware/power.js';
import { DOUBLE_FIELD } from '../double-field.js';
import { MAX_LEVELS } from './context.js';
import type { Ctx, HwTable, Kept, LoopState } from './context.js';
import { DistinctPlans, type PlanCount } from './distinct.js';
import { REASONS } from './types.js';

/** A search's empty state over `gpuOptions` GPU options, counting distinct plans in `plans`. */
export const emptyLoopState = (
  gpuOptions: number,
  plans: PlanCount = new DistinctPlans(),
): LoopState => ({
  reasons: new Float64Array(REASONS.length),
  candidates: 0,
  feasible: 0,
  fastest: Infinity,
  top: [],
  front: [],
  near: REASONS.map(() => null),
  lastDominator: 0,
  dominators: new Array<Kept | null>(gpuOptions * MAX_LEVELS).fill(null),
  seq: 0,
  distinct: plans,
});

/**
 * Whether every GPU option and power level draws different wall watts at each GPU count up to `maxCount`, as
 * evalLevels computes them: then a candidate's (option × level, cost, hours, watts) tells its GPU count, and the
 * distinct plans can be counted by (option × level, GPU count, hours) (distinct.ts CountedPlans).
 */
export function wattsTellCounts(ctx: Ctx, t: HwTable, maxCount: number): boolean {
  const w: NodeWatts = { full: 0, fullW: DOUBLE_FIELD, lastW: DOUBLE_FIELD, total: DOUBLE_FIELD };
  const seen = new Set<number>();
  for (let h = 0; h < t.H; h++)
    for (const lv of ctx.levels[h]!) {
      seen.clear();
      for (let c = 1; c <= maxCount; c++) {
        planWallWatts(c, t.nodeSizeOf[h]!, t.boardW[h]! * lv, ctx.s.power.systemDrawW, ctx.eff, w);
        if (!Number.isFinite(w.total) || seen.has(w.total)) return false;
        seen.add(w.total);
      }
    }
  return true;
}
