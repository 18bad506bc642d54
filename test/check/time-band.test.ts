/**
 * The check's time bands are the time model's p90 absolute error per kind on the shipped speed set, rounded up
 * (TIME_UNCERTAINTY): this fails when they drift from what `validate --throughput` measures.
 */
import { describe, expect, it } from 'vitest';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import { TIME_UNCERTAINTY } from '../../src/core/check/index.js';
import { throughputSummaries } from '../../src/core/time/accuracy.js';

const summary = Object.fromEntries(
  throughputSummaries(throughputRows('throughput.json')).map((s) => [s.group, s]),
);

describe('TIME_UNCERTAINTY', () => {
  for (const kind of ['training', 'decode', 'serving', 'rl'] as const) {
    it(`${kind}: covers the out-of-sample p90 |error| and is at most 0.02 above it`, () => {
      const p90 = summary[`kind:${kind}`]!.p90AbsError;
      expect(TIME_UNCERTAINTY[kind]).toBeGreaterThanOrEqual(p90);
      expect(TIME_UNCERTAINTY[kind] - p90).toBeLessThan(0.02);
    });
  }
});
