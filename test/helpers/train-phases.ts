import {
  TRAIN_PHASES,
  trainStep,
  type GpuRates,
  type TrainWork,
} from '../../src/core/time/index.js';

/** A training step's phases (seconds, indexed by TRAIN_PHASES) for a work record on one GPU's rates. */
export function stepPhases(w: TrainWork, r: GpuRates): Float64Array {
  const phases = new Float64Array(TRAIN_PHASES.length);
  trainStep(w, r, phases);
  return phases;
}
