/**
 * Uncertainty band of an estimate: the 90th-percentile absolute error of the estimator on the shipped
 * calibration set (`vramplan validate`). Update both numbers when the model or the set changes;
 * test/calibration.test.ts fails when they drift from what validate measures.
 */
export const UNCERTAINTY = {
  p90AbsError: 0.07,
  medianAbsError: 0.02,
  basis: 'p90 absolute error on the shipped calibration cases (vramplan validate), rounded up',
} as const;
