/** Pure: which plans the table shows (filter, search, sort) and which slice of them fits on screen. */
import type { Plan } from '../../core/plan/index.js';
import { HIGH_EDGE_FACTOR, bandOf } from '../../core/memory/index.js';
import { hardwareOf, techniqueOf } from '../plan-text.js';

export const SORT_KEYS = ['rank', 'cost', 'slowdown', 'power', 'time', 'headroom'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Filter axes the user cycles through with a key (null = all). */
export const FILTER_AXES = ['method', 'gpu', 'optimizer'] as const;
export type FilterAxis = (typeof FILTER_AXES)[number];

export interface Filters {
  method: string | null;
  gpu: string | null;
  optimizer: string | null;
  /**
   * Only plans that still fit if the estimate is low by its p90 error (core/memory/uncertainty.ts): every plan the
   * planner returns fits at the estimate itself, so this keeps the ones that fit with room to spare.
   */
  fitsOnly: boolean;
  /** Only plans on the Pareto front over (cost, slowdown, power). */
  frontOnly: boolean;
  /** Case-insensitive substring of the plan id, hardware or technique. */
  search: string;
}

export const NO_FILTERS: Filters = {
  method: null,
  gpu: null,
  optimizer: null,
  fitsOnly: false,
  frontOnly: false,
  search: '',
};

export const axisValue = (p: Plan, axis: FilterAxis): string =>
  axis === 'method' ? p.choices.method : axis === 'gpu' ? p.hardware.gpuId : p.choices.optimizer;

/** Distinct values of an axis among the plans, sorted: what the filter key cycles through. */
export function axisValues(plans: readonly Plan[], axis: FilterAxis): string[] {
  return [...new Set(plans.map((p) => axisValue(p, axis)))].sort();
}

/** null → first value → … → last value → null. */
export function nextAxisValue(values: readonly string[], current: string | null): string | null {
  if (values.length === 0) return null;
  if (current === null) return values[0]!;
  const i = values.indexOf(current);
  return i < 0 || i === values.length - 1 ? null : values[i + 1]!;
}

const SORT_VALUE: Record<SortKey, (p: Plan) => number> = {
  rank: (p) => p.rank,
  cost: (p) => p.cost.usd,
  slowdown: (p) => p.slowdown,
  power: (p) => p.power.wallWatts,
  time: (p) => p.time.hours,
  // Most headroom first reads best, so headroom sorts descending by default.
  headroom: (p) => -p.memory.headroomBytes,
};

/**
 * Fits even at the band's high edge (the largest under-estimate on the calibration set). The fit figure is
 * capacity less headroom: paged optimizer states that fill the free memory (and page out) are not in it.
 */
export const surelyFits = (p: Plan): boolean =>
  bandOf(p.memory.capacityBytes - p.memory.headroomBytes).highBytes <= p.memory.capacityBytes;

/** Plans after filters and search, sorted by `key` (then rank, so ties stay in planner order). */
export function visiblePlans(
  plans: readonly Plan[],
  filters: Filters,
  key: SortKey,
  descending = false,
): Plan[] {
  const q = filters.search.trim().toLowerCase();
  const out = plans.filter(
    (p) =>
      (filters.method === null || p.choices.method === filters.method) &&
      (filters.gpu === null || p.hardware.gpuId === filters.gpu) &&
      (filters.optimizer === null || p.choices.optimizer === filters.optimizer) &&
      (!filters.fitsOnly || surelyFits(p)) &&
      (!filters.frontOnly || p.onFront) &&
      (q === '' || `${p.id} ${hardwareOf(p)} ${techniqueOf(p)}`.toLowerCase().includes(q)),
  );
  const f = SORT_VALUE[key];
  const sign = descending ? -1 : 1;
  return out.sort((a, b) => sign * (f(a) - f(b)) || a.rank - b.rank);
}

/** First row of the window so that `cursor` is visible, moving the window as little as possible. */
export function scrollTop(prevTop: number, cursor: number, height: number, count: number): number {
  if (height <= 0 || count <= height) return 0;
  let top = prevTop;
  if (cursor < top) top = cursor;
  if (cursor >= top + height) top = cursor - height + 1;
  return Math.max(0, Math.min(top, count - height));
}

export const clamp = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, n));

/** Describe active filters in one short line ('' when none). */
export function filterSummary(f: Filters): string {
  const parts: string[] = [];
  if (f.method) parts.push(`method=${f.method}`);
  if (f.gpu) parts.push(`gpu=${f.gpu}`);
  if (f.optimizer) parts.push(`optimizer=${f.optimizer}`);
  if (f.fitsOnly) parts.push(`fits at +${Math.round((HIGH_EDGE_FACTOR - 1) * 100)}%`);
  if (f.frontOnly) parts.push('Pareto front');
  if (f.search) parts.push(`/${f.search}`);
  return parts.join(', ');
}
