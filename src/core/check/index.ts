/**
 * The run check (docs/check.md): a launched run's measurements against its plan. run-plan.ts writes the plan
 * into the launch folder; logs.ts and prometheus.ts read the engines' own output; observe.ts reduces a record
 * to one figure per component; compare.ts compares and names reasons; case.ts writes calibration rows.
 */
export { caseConfigFile, caseRows } from './case.js';
export {
  checkRun,
  OTHER_PROCESS_BYTES,
  TIME_UNCERTAINTY,
  versionDrift,
  type CheckResult,
  type CheckRow,
  type Component,
  type Observed,
} from './compare.js';
export { fallbackLines, parseTrainLog, type LogFormat, type TrainLogFigures } from './logs.js';
export { observe, type RunRecord } from './observe.js';
export {
  parseSamples,
  parseScrapes,
  servingEngineOf,
  servingFigures,
  type ServingEngine,
  type ServingFigures,
} from './prometheus.js';
export { pinsOf, runPlanOf, runPlanText } from './run-plan.js';
