/**
 * The planner: every way to do the job, evaluated flat through one loop, ranked by the scenario's
 * preference with a Pareto front over (cost, slowdown, power). Pure: data in, PlanResult out.
 *
 * Model side (method × weights × optimizer × checkpointing × attention × micro-batch × sharding × tp/pp ×
 * count) is enumerated apart from the hardware side (GPU option × power limit). Memory depends only on the
 * model side, so estimateMemory runs once per distinct (configuration, layout) and feasibility per GPU is
 * one comparison. The hot loop allocates nothing per pruned candidate: reasons are counted by code.
 */
import { hasFp4Cores } from './candidates.js';
import { MiB } from '../units.js';
import { modelSideOf } from './model-side.js';
import { REASON, idleReason, makeContext } from './context.js';
import { runLoop } from './loop.js';
import { finish, replicaPlans } from './results.js';
import { countRows } from './rows.js';
import type { PlanInput, PlanResult, ReplicaPlan } from './types.js';
export { REASONS } from './types.js';
export type {
  CircuitSolve,
  Fleet,
  FleetReplica,
  HardwareOption,
  NearestFix,
  Plan,
  PlanChoices,
  PlanInput,
  PlanProgress,
  PlanResult,
  PrunedCount,
  ReasonCode,
  ReplicaPlan,
} from './types.js';
export { DEFAULT_GPU_WATTS, boardWatts, searchedEngines, variantsOf } from './configs.js';
export { largestThatFits } from './results.js';
export { modelSidesFor, recentModelSides, type ModelSides } from './model-side.js';

/** The search of `input`: its model side, context and loop state, and the fastest hours found. */
function search(input: PlanInput) {
  const { scenario: s, arch } = input;
  const top = input.top ?? 10;
  const fp4Cores = input.hardware.some((h) => hasFp4Cores(h.gpu.computeCapability));
  const fp8Cores = input.hardware.some((h) => h.gpu.supportsFp8 === true);
  const appleGpus = input.hardware.some((h) => h.gpu.vendor === 'apple');
  // What each GPU option offers the plan (context.ts hwTableOf capBytes): the exact -ngl search fits to it.
  const capacities = input.hardware.map((h) => h.gpu.memoryMiB * MiB * (1 - s.limits.memoryMargin));
  const side = modelSideOf(
    s,
    arch,
    fp4Cores,
    input.pause,
    input.modelSides,
    fp8Cores,
    appleGpus,
    capacities,
  );
  const { bases, built, variants, memo } = side;
  const ctx = makeContext(input, bases, built.rows, built.mem, variants, memo);
  let fastest = Infinity;
  if (s.limits.maxSlowdown !== undefined) fastest = runLoop(ctx, Infinity, 0).fastest;
  const st = runLoop(ctx, fastest, Math.max(top, 20));
  return { side, ctx, st, fastest, top };
}

/**
 * The search's ranked plans as a serving fleet reads them (types.ts ReplicaPlan): the plans of plan(input),
 * in its order, without the rest of its result (plan-fleet.ts fleetCandidates searches every GPU source).
 */
export function planReplicas(input: PlanInput): ReplicaPlan[] {
  const { ctx, st, top } = search(input);
  return replicaPlans(ctx, st, top);
}

/** The search; returns a PlanResult (call-site does I/O). */
export function plan(input: PlanInput): PlanResult {
  const { scenario: s, arch } = input;
  const found = search(input);
  const { side, ctx, st, top } = found;
  let fastest = found.fastest;
  const { bases, all, variants } = side;
  const maxGpus = s.limits.maxGpus ?? Infinity;
  const { rows, modelPruned } = side.built;
  // Model-side prunes stand for every GPU option and power level they would have met.
  const levels = ctx.levels.reduce((a, l) => a + l.length, 0);
  // Added to the search loop's own (hardwareGate: an engine below its GPU floor or without kernels for the GPU,
  // a one-machine engine over several machines).
  st.reasons[REASON['no-engine']] =
    st.reasons[REASON['no-engine']]! + modelPruned.noEngine * levels;
  st.reasons[REASON.quality] = st.reasons[REASON.quality]! + modelPruned.quality * levels;
  st.reasons[REASON.undocumented] =
    st.reasons[REASON.undocumented]! + modelPruned.undocumented * levels;
  st.candidates += (modelPruned.noEngine + modelPruned.quality + modelPruned.undocumented) * levels;
  if (!Number.isFinite(fastest)) fastest = st.fastest;
  // Counts over limits.maxGpus are not searched, but they are candidates pruned for that reason.
  const over = all.filter((c) => c > maxGpus);
  if (over.length > 0) {
    const n =
      countRows(s, arch, bases, over, variants) * ctx.levels.reduce((a, l) => a + l.length, 0);
    st.reasons[REASON['over-max-gpus']] = st.reasons[REASON['over-max-gpus']]! + n;
    st.candidates += n;
  }
  const result = finish(ctx, st, fastest, top);
  const ran = new Set<number>();
  for (let r = 0; r < rows.n; r++) ran.add(rows.variant[r]!);
  result.engines = [...new Set(variants.map((v) => v.engine))].map((engine) => ({
    engine,
    idle: variants.some((v, vi) => v.engine === engine && ran.has(vi))
      ? null
      : idleReason(s, arch, engine),
  }));
  return result;
}
