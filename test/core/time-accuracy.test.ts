/**
 * The time model against the shipped published speeds (calibration/throughput.json), through the very
 * function `estimate --json` and `validate --throughput` use (estimateTime via throughputRows). Fails when
 * the figures regress past the issue-11 targets, or past today's level where a target is not met yet.
 */
import { describe, expect, it } from 'vitest';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import { THROUGHPUT_TARGETS, throughputSummaries } from '../../src/core/time/accuracy.js';

const rows = throughputRows('throughput.json');
const summary = Object.fromEntries(throughputSummaries(rows).map((s) => [s.group, s]));

// The p90 target (<= 35 %) is NOT met yet: the fsdp_qlora rows on consumer/workstation rigs keep it above.
// This bound is a regression guard at today's level (measured p90 plus a little slack), not the target;
// lower it when the model improves, and switch to THROUGHPUT_TARGETS.p90 once it is reached.
const P90_GUARD = 0.57;

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

  it("p90 |error| does not regress (guard at today's level; the 35 % target is not met yet)", () => {
    expect(summary.all!.p90AbsError).toBeLessThanOrEqual(P90_GUARD);
  });

  it('decode stays tight: p90 |error| <= 20 %', () => {
    expect(summary['kind:decode']!.p90AbsError).toBeLessThanOrEqual(0.2);
  });
});
