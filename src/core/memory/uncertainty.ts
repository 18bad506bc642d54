/**
 * Uncertainty band of an estimate, from the estimator's errors on the shipped calibration set
 * (`vramplan validate`): the low edge is the 90th-percentile absolute error; the high edge covers the
 * largest under-estimate, so no shipped peak lies above it (an under-estimate is the error that lets a plan
 * that does not fit pass). Update the numbers when the model or the set changes; test/calibration.test.ts
 * fails when they drift from what validate measures.
 */
export const UNCERTAINTY = {
  p90AbsError: 0.07,
  medianAbsError: 0.02,
  /** The largest under-estimate, as validate's error (estimate / measured - 1), rounded up. */
  maxUnderError: 0.11,
  basis:
    'low edge: p90 absolute error; high edge: the largest under-estimate; on the shipped calibration cases (vramplan validate), rounded up',
} as const;

/** The band's high edge over the estimate (bandOf): a peak under-estimated by e is estimate / (1 - e). */
export const HIGH_EDGE_FACTOR = 1 / (1 - UNCERTAINTY.maxUnderError);

/** The band around a device estimate. */
export function bandOf(deviceBytes: number): { lowBytes: number; highBytes: number } {
  return {
    lowBytes: Math.round(deviceBytes * (1 - UNCERTAINTY.p90AbsError)),
    highBytes: Math.round(deviceBytes / (1 - UNCERTAINTY.maxUnderError)),
  };
}
