/**
 * The model side of a search: its configurations, engine variants and rows with their memory, which read of the
 * GPU options only their tensor-core formats and, where llama.cpp's layer offload is searched, their memories
 * (plan.ts). Searches of one scenario object and model over different GPU options (a
 * serving fleet plans each GPU source apart: plan-fleet.ts) share them through a ModelSides memo.
 */
import type { Arch } from '../model/arch.js';
import type { Scenario } from '../../schema/scenario.js';
import { gpuCounts } from './candidates.js';
import {
  baseConfigs,
  float8Searched,
  layerFitSpace,
  variantsOf,
  type BaseConfig,
  type Variant,
} from './configs.js';
import { buildRows } from './rows.js';
import type { AlikeEstimates } from '../memory/surface.js';
import { leastTrainingGpus } from './objective.js';
import { newSearchMemo, type SearchMemo } from './search-memo.js';
import { keptOr } from './kept.js';
import { newViewMemo, searchMemoOf, type ViewMemo } from './view-memo.js';

export interface ModelSide {
  bases: BaseConfig[];
  /** Every GPU count searched, and those within limits.maxGpus. */
  all: number[];
  counts: number[];
  variants: Variant[];
  built: ReturnType<typeof buildRows>;
  /** What the search loop makes from this model side alone, for every search on it (search-memo.ts SearchMemo). */
  memo: SearchMemo;
}

/**
 * Model sides made for one scenario and model, by what of the hardware the configurations read: whether it has
 * FP4 cores (candidates.ts hasFp4Cores) and FP8 cores, and, where llama.cpp's layer offload is searched, its GPU
 * memories (layer-fit.ts). A search reads a model side and never writes it, except rows written on first read
 * (MemTable.deferred), which are the same whoever writes them.
 */
export interface ModelSides {
  scenario: Scenario;
  /** modelView of the scenario: another scenario with the same view gets the same model sides. */
  view: string;
  arch: Arch;
  /** By the hardware's tensor-core formats: FP4 (Blackwell) and FP8 (the searched FP8 training). */
  byCores: Map<string, ModelSide>;
  /**
   * A serving search's memory surfaces' estimates by options (rows.ts surfaceOf, and llama.cpp's layer fit:
   * layer-fit.ts), which the fleet's per-source searches ask again on model sides of their own GPU memories (layer
   * offload). Each surface still counts the estimates it asks for (memory/surface.ts AlikeEstimates), so
   * `searched.memoryEvaluations` is a lone search's.
   */
  surfaces: Map<string, AlikeEstimates>;
  /**
   * Figures shared with the model sides of the same model's other views (view-memo.ts): a re-planning host's
   * (recentModelSides) only.
   */
  views?: ViewMemo;
}

/**
 * A scenario as the model side reads it: without the limits other than maxGpus, the ranking and a serving
 * job's demand, which only the hardware loop, the results and the fleet read (the fleet's per-source searches
 * lift them: plan-fleet.ts fleetCandidates).
 */
export function modelView(s: Scenario): string {
  const limits = {
    ...s.limits,
    budgetUsd: undefined,
    deadlineHours: undefined,
    maxSlowdown: undefined,
  };
  const job = s.job.kind === 'inference' ? { ...s.job, requestsPerSecond: undefined } : s.job;
  return JSON.stringify({ ...s, rank: undefined, limits, job });
}

/** An empty memo for searches of `scenario` (or one of the same modelView) on `arch` (PlanInput.modelSides). */
export const modelSidesFor = (scenario: Scenario, arch: Arch): ModelSides => ({
  scenario,
  view: modelView(scenario),
  arch,
  byCores: new Map(),
  surfaces: new Map(),
});

/**
 * The memo of `scenario` and `arch` among `recent` (searches planned before, most recent first): the one made
 * for the same model and modelView, moved to the front, else a new one; at most `keep` are kept. A host that
 * re-plans edited scenarios (the explorer's planner worker) keeps the model sides of the views it planned
 * last: an edit the model side does not read (the ranking, the budget, a deadline) or a return to an earlier
 * value reuses them whole. A model side is read-only but for rows written on first read, the same whoever
 * writes them (ModelSides), so a search on a reused one finds what a fresh one would.
 */
export function recentModelSides(
  recent: ModelSides[],
  scenario: Scenario,
  arch: Arch,
  keep: number,
): ModelSides {
  const view = modelView(scenario);
  const i = recent.findIndex((m) => m.arch === arch && m.view === view);
  const memo = i >= 0 ? recent.splice(i, 1)[0]! : modelSidesFor(scenario, arch);
  // Another view of the same model (a GPU count or type edited) shares its figures (view-memo.ts).
  memo.views ??= recent.find((m) => m.arch === arch)?.views ?? newViewMemo();
  recent.unshift(memo);
  if (recent.length > keep) recent.length = keep;
  return memo;
}

/** The model side of a search: from `memo` when it was made for this model and scenario (or its view), else built. */
export function modelSideOf(
  s: Scenario,
  arch: Arch,
  fp4Cores: boolean,
  pause: (() => void) | undefined,
  memo: ModelSides | undefined,
  fp8Cores = false,
  appleGpus = false,
  capacities: readonly number[] = [],
): ModelSide {
  // The configurations read FP8 cores only through the FP8 training formats searched (configs.ts
  // float8Searched): hardware that differs in FP8 cores alone (a serving fleet's sources) shares a model side.
  // Apple GPUs among the hardware keep the rows without Liger that a faster twin would fold (configs.ts variantsOf).
  // The exact layer-offload search reads the GPU memories (layer-fit.ts): hardware of other memories gets its own.
  const all = gpuCounts(leastTrainingGpus(s), s.hardware.counts.max, s.hardware.gpusPerNode);
  const maxGpus = s.limits.maxGpus ?? Infinity;
  const counts = all.filter((c) => c <= maxGpus);
  const shared =
    memo && memo.arch === arch && (memo.scenario === s || memo.view === modelView(s))
      ? memo
      : undefined;
  // Memory surfaces' estimates by options, for the rows and the layer fit: training searches are one per model
  // side (no fleet), where keying them would only cost.
  const kept =
    shared?.views?.surfaces ?? (s.job.kind === 'inference' ? shared?.surfaces : undefined);
  const fit = layerFitSpace(s, arch, counts, capacities, kept);
  const cores = `${fp4Cores}|${float8Searched(s, fp8Cores, fp4Cores).join(',')}${appleGpus ? '|apple' : ''}${fit ? `|${fit.capacities.join(',')}` : ''}`;
  const known = shared?.byCores.get(cores);
  if (known) return known;
  const bases = baseConfigs(s, arch, fp4Cores, fp8Cores, fit);
  const variants = variantsOf(s, arch, appleGpus);
  const views = shared?.views;
  const search = views ? searchMemoOf(views, bases, variants, newSearchMemo) : newSearchMemo();
  // Another view's engine verdicts, by the two things of the scenario they read (SearchMemo.verdicts).
  const verdicts =
    views && keptOr(search.verdicts, `${s.quality}|${s.search.undocumented === true}`, () => []);
  const built = buildRows(s, arch, bases, counts, variants, pause, kept, verdicts);
  // The layer search's estimates count with the rows' (searched.memoryEvaluations).
  if (fit) built.mem.evaluations = (built.mem.evaluations ?? 0) + fit.evaluations;
  const side = { bases, all, counts, variants, built, memo: search };
  shared?.byCores.set(cores, side);
  return side;
}
