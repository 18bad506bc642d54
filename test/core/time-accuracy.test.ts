/**
 * The time model against the shipped published speeds (calibration/throughput.json), through the very
 * function `estimate --json` and `validate --throughput` use (estimateTime via throughputRows). Fails when
 * the figures regress past the issue-11 targets.
 */
import { describe, expect, it } from 'vitest';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import { THROUGHPUT_TARGETS, throughputSummaries } from '../../src/core/time/accuracy.js';

const rows = throughputRows('throughput.json');
const summary = Object.fromEntries(throughputSummaries(rows).map((s) => [s.group, s]));

describe('time model accuracy on the shipped throughput set', () => {
  it('scores every scorable case of both kinds with a finite estimate', () => {
    expect(rows.length).toBeGreaterThanOrEqual(80);
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['training', 'decode']));
    for (const r of rows) expect(Number.isFinite(r.estimated) && r.estimated > 0, r.id).toBe(true);
  });

  it(`overall median |error| <= ${THROUGHPUT_TARGETS.median * 100} % (issue target)`, () => {
    expect(summary.all!.medianAbsError).toBeLessThanOrEqual(THROUGHPUT_TARGETS.median);
  });

  for (const kind of ['training', 'decode'])
    it(`${kind} median |error| <= ${THROUGHPUT_TARGETS.kindMedian * 100} % (issue target)`, () => {
      expect(summary[`kind:${kind}`]!.medianAbsError).toBeLessThanOrEqual(
        THROUGHPUT_TARGETS.kindMedian,
      );
    });

  it(`overall p90 |error| <= ${THROUGHPUT_TARGETS.p90 * 100} % (issue target)`, () => {
    expect(summary.all!.p90AbsError).toBeLessThanOrEqual(THROUGHPUT_TARGETS.p90);
  });

  it('decode stays tight: p90 |error| <= 20 %', () => {
    expect(summary['kind:decode']!.p90AbsError).toBeLessThanOrEqual(0.2);
  });
});
