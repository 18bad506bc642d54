/**
 * A training or preference / RL row's step at one rates object, worked out once per rates object. The step is a pure
 * function of the row's work, the rates object and whether paged optimizer states spill (trainStep and objectiveStep
 * in core/time read only those; objectiveStep's phases go to a scratch the search does not read), and whether they
 * spill follows from the row's memory and the GPU's bytes. Options that share a rates object have the same GPU
 * (context.ts ratesOf: the offers of one GPU type at one node size and power level), so the same bytes: the row's
 * step on one of them is its step on all of them. A rented search lists several offers of a GPU type
 * (scenarios/70b-qlora-rent-cheapest.yaml: 45 options on 18 rates objects; scenarios/grpo-qwen2.5-7b.yaml: 6 on 3),
 * so most of its steps are read, not timed; every hours figure is computed from the same step as before, so the
 * output is the same.
 */
import { onCapacity } from '../memory/surface.js';
import { objectiveStep, type ObjectiveWork } from '../time/objective.js';
import { pagedSpills } from '../time/paged-migration.js';
import { trainStep, type GpuRates, type TrainWork } from '../time/index.js';
import type { ModelFacts } from '../time/model-facts.js';
import { PLAN_DECODE_TIME } from './context.js';

/** What a row's step reads of its facts: its memory per GPU and vLLM's colocated share and floor. */
export interface StepFacts {
  device: number;
  share: number;
  floor: number;
}

/** What a row's step reads of its timing facts, and where its steps are kept (null: not kept). */
export interface StepTiming {
  work: TrainWork | null;
  objective: ObjectiveWork | null;
  /** The row's step by rates object (HwTable.rateIds), NaN where not yet worked out. */
  steps: Float64Array | null;
}

/** Steps kept per row by rates object, where the search's options share rates objects (else none: nothing repeats). */
export function stepsFor(distinctRates: number, usedSlots: number): Float64Array | null {
  return distinctRates < usedSlots ? new Float64Array(distinctRates).fill(NaN) : null;
}

/** objectiveStep's phases (scratch: the search reads only the step). */
const OBJECTIVE_SCRATCH = { rollout: 0, referenceLogprobs: 0, policyTraining: 0, weightSync: 0 };

/**
 * The row's step at `rate` (rates object number `rateId`) on a GPU of `gpuBytes`: kept from an option that shares the
 * rates object, else timed (and kept). Paged optimizer states that do not all fit on the card migrate every step
 * (paged-migration.ts).
 */
export function rowStep(
  facts: ModelFacts,
  f: StepFacts,
  ft: StepTiming,
  rate: GpuRates,
  rateId: number,
  gpuBytes: number,
): number {
  const steps = ft.steps;
  if (steps !== null && rateId >= 0) {
    const kept = steps[rateId]!;
    if (kept === kept) return kept;
  }
  const w = ft.objective ? ft.objective.policy.train : ft.work!;
  const spilled = pagedSpills(w, onCapacity(f.device, f.share, f.floor, gpuBytes), gpuBytes);
  const step = ft.objective
    ? objectiveStep(facts, ft.objective, PLAN_DECODE_TIME, rate, OBJECTIVE_SCRATCH, spilled)
    : trainStep(ft.work!, rate, undefined, undefined, spilled);
  if (steps !== null && rateId >= 0) steps[rateId] = step;
  return step;
}
