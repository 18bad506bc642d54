/**
 * The one pipeline: scenario → PlanResult. `plan`, `compare`, exports, `launch --plan N` and the explorer
 * (in its worker) all call these, so they agree plan for plan: the model path resolves against the
 * scenario file, the circuit-assignment MIP refines owned multi-circuit plans, and serving scenarios get
 * their fleet.
 */
import { plan, type PlanInput, type PlanProgress, type PlanResult } from '../core/plan/index.js';
import { refineCircuits } from '../core/plan/index.js';
import { planFleet } from '../core/plan/index.js';
import { modelSidesFor, recentModelSides, type ModelSides } from '../core/plan/index.js';
import { scenarioStructureIssue } from '../core/model/index.js';
import { ENGINE_RUNS } from '../core/engines/engines-runs.js';
import { searchedEngines } from '../core/plan/configs.js';
import type { Scenario } from '../schema/scenario.js';
import type { Arch } from '../core/model/arch.js';
import { outputTokensWarning } from '../schema/serving-job.js';
import { UserError, badValue } from './errors.js';
import { loadGpus } from './load-catalog.js';
import { resolveModel } from './load-model.js';
import { prewarmSolver } from '../solve/index.js';
import { loadLaunchers } from '../core/engines/registry.js';
import {
  inScenario,
  loadScenario,
  modelSpecOf,
  resolveHardware,
  validScenario,
} from './load-scenario.js';

export interface PipelineOptions {
  /** Plans to rank (the front is returned whole). Default 10. */
  top?: number;
  /** GPU ids detected on this machine (nvidia-smi), added as owned hardware. */
  detected?: readonly string[];
  /** Called now and then during the search (a progress line, a spinner). */
  onProgress?: (p: PlanProgress) => void;
  /** Called between small slices of the search: a background host may wait there (PlanInput.pause). */
  pause?: () => void;
  /**
   * Model sides of earlier plans in this process, most recent first (core/plan/model-side.ts
   * recentModelSides): a host that re-plans edited scenarios passes the same array to each plan.
   */
  recent?: ModelSides[];
  /**
   * Results of earlier plans in this process, most recent first (keptPlan): a host that re-plans edited
   * scenarios passes the same array to each plan, and an edit back to a scenario planned lately (an undo, a
   * step back) gets that plan's result again. The result returned is shared with later such calls: read-only.
   */
  recentPlans?: RecentPlan[];
}

/** A plan made in this process and what it was made from (PipelineOptions.recentPlans). */
export interface RecentPlan {
  /** The model it was planned for (resolveModel gives the same object until the model's file changes). */
  arch: Arch;
  /** The scenario, the plans to rank, the hardware options and the circuits, as JSON (inputKey). */
  key: string;
  result: PlanResult;
}

/** Model sides a re-planning host keeps: an edit and its undo, and a few views besides. */
const RECENT_SIDES = 4;
/** Results a re-planning host keeps, as many as the model sides. */
const RECENT_PLANS = 4;

/**
 * What a plan is a function of besides its model: `plan` (src/core, pure) reads its PlanInput only, the
 * circuit MIP and the fleet refine what it returns from the same input, and the model sides are made from
 * the scenario and the model. All of it is plain data (the parsed scenario, the hardware options with their
 * catalog GPUs and offers, the circuits): equal JSON, equal input.
 */
const inputKey = (input: PlanInput): string =>
  JSON.stringify([input.scenario, input.top ?? null, input.hardware, input.circuits]);

/** The result kept for `input` among `recent` (moved to the front), or undefined. */
function keptPlan(recent: RecentPlan[], input: PlanInput, key: string): PlanResult | undefined {
  const i = recent.findIndex((p) => p.arch === input.arch && p.key === key);
  if (i < 0) return undefined;
  const [hit] = recent.splice(i, 1);
  recent.unshift(hit!);
  return hit!.result;
}

/** The PlanInput of a parsed scenario; `file` is where it came from (relative model paths resolve beside it). */
export function planInputOf(
  file: string,
  scenario: Scenario,
  opts: Omit<PipelineOptions, 'onProgress' | 'pause'> = {},
): PlanInput {
  const { arch, hw } = inScenario(file, () => {
    const arch = resolveModel(modelSpecOf(file, scenario), { flag: 'model' });
    const scalesRope = searchedEngines(scenario).some((e) => !!ENGINE_RUNS[e].extendsContext);
    const issue = scenarioStructureIssue(arch, scenario, scalesRope);
    if (issue) throw badValue(issue.field, issue.value, issue.allowed);
    return { arch, hw: resolveHardware(scenario, opts.detected ?? []) };
  });
  return { scenario, arch, hardware: hw.options, circuits: hw.circuits, top: opts.top };
}

/**
 * The one validation a scenario gets before it is planned, whatever changed it (a file, the explorer's
 * edits): the schema, then the model's structure and the hardware ids (planInputOf). The error is the
 * one-line message `plan` prints for the same scenario; null when it is valid.
 */
export function scenarioError(
  file: string,
  scenario: Scenario,
  detected: readonly string[] = [],
): string | null {
  try {
    planInputOf(file, validScenario(file, scenario), { detected });
    return null;
  } catch (e) {
    if (e instanceof UserError) return e.message;
    throw e;
  }
}

/** Plan a parsed scenario: the search, then the circuit MIP, then (serving) the fleet. */
export async function planScenarioObject(
  file: string,
  scenario: Scenario,
  opts: PipelineOptions = {},
): Promise<PlanResult> {
  const base = planInputOf(file, scenario, opts);
  const key = opts.recentPlans ? inputKey(base) : '';
  const kept = opts.recentPlans && keptPlan(opts.recentPlans, base, key);
  if (kept) return kept;
  // The search and the fleet's per-source searches share one model side (core/plan/model-side.ts).
  const modelSides = opts.recent
    ? recentModelSides(opts.recent, base.scenario, base.arch, RECENT_SIDES)
    : modelSidesFor(base.scenario, base.arch);
  const input: PlanInput = { ...base, modelSides };
  // The planner ranks only what a launcher writes: their checks run inside the search.
  await loadLaunchers();
  // The fleet MIP (HiGHS) follows a serving search: its WebAssembly compiles in the background meanwhile.
  if (scenario.job.kind === 'inference') prewarmSolver();
  // The search is greedy and sync; the MIPs (HiGHS, bounded by node and solve counts) refine what it reports.
  const hooks = { onProgress: opts.onProgress, pause: opts.pause };
  const searched = plan(opts.onProgress || opts.pause ? { ...input, ...hooks } : input);
  const result = await refineCircuits(searched, input);
  const fleet = await planFleet(input);
  const out = fleet ? { ...result, fleet } : result;
  if (opts.recentPlans) {
    opts.recentPlans.unshift({ arch: base.arch, key, result: out });
    if (opts.recentPlans.length > RECENT_PLANS) opts.recentPlans.length = RECENT_PLANS;
  }
  return out;
}

/** GPU ids nvidia-smi reports, when the scenario or the flag asks for detection. */
export async function detectedFor(scenario: Scenario, detect: boolean): Promise<string[]> {
  if (!detect && !scenario.hardware.detect) return [];
  const { detectGpus } = await import('./detect.js'); // runs nvidia-smi: loaded only for --detect
  const found = await detectGpus({ gpus: loadGpus() });
  // Said on stderr (the report and --json stay as they are): detection that adds nothing is not silent.
  const unknown = found.filter((d) => d.gpuId === null).map((d) => d.name);
  if (found.length === 0)
    process.stderr.write(
      "note: --detect: nvidia-smi reported no GPUs (not installed, no NVIDIA driver, or no answer); planning with the scenario's hardware only\n",
    );
  else if (unknown.length > 0)
    process.stderr.write(
      `note: --detect: not in the GPU catalog, so not added: ${[...new Set(unknown)].join(', ')} (see 'vramplan catalog gpus')\n`,
    );
  return found.flatMap((d) => (d.gpuId ? [d.gpuId] : []));
}

/** Load, resolve and plan one scenario file. */
export async function planScenarioFile(
  file: string,
  opts: Omit<PipelineOptions, 'detected'> & { detect?: boolean } = {},
): Promise<PlanResult> {
  const scenario = loadScenario(file);
  const warning = scenario.job.kind === 'inference' ? outputTokensWarning(scenario.job) : null;
  // On stderr, as --detect's notes: the report and --json stay as they are.
  if (warning) process.stderr.write(`warning: ${file}: ${warning}\n`);
  const detected = await detectedFor(scenario, opts.detect === true);
  return planScenarioObject(file, scenario, { ...opts, detected });
}
