/**
 * The one way every command says how many plans a scenario has: the report's second line, the explorer's
 * header, compare, `--export`'s line and `launch --plan`'s range all name these two numbers in these words.
 */
import type { PlanResult } from '../core/plan/index.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** "1,362 feasible configurations → 216 distinct plans". */
export function planCountText(r: PlanResult): string {
  return `${n(r.searched.feasible)} feasible configurations → ${distinctText(r)}`;
}

/** "216 distinct plans" (one plan: "1 distinct plan"). */
export function distinctText(r: PlanResult): string {
  const d = r.searched.distinctPlans;
  return `${n(d)} distinct plan${d === 1 ? '' : 's'}`;
}

/** What of the distinct plans a list shows: "all 216 distinct plans shown" or "10 of 216 … shown". */
export function shownText(r: PlanResult, shown = r.plans.length): string {
  const d = r.searched.distinctPlans;
  if (shown >= d) return d === 1 ? 'shown' : `all ${n(d)} shown`;
  return `${n(shown)} shown`;
}

/** The compare cell: "1,362 → 216" under the label `COUNT_LABEL`. */
export const COUNT_LABEL = 'feasible → plans';
export const countCell = (r: PlanResult): string =>
  `${n(r.searched.feasible)} → ${n(r.searched.distinctPlans)}`;
