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

// Issue 30: the headline figures are the out-of-sample rows (a row a constant was worked out from is in
// sample: its in_sample_why); the bars are the figures measured when the split was made, per kind.
const OUT_OF_SAMPLE_BARS = {
  all: { count: 103, median: 0.091, p90: 0.302 },
  'kind:training': { count: 67, median: 0.112, p90: 0.56 },
  'kind:decode': { count: 36, median: 0.081, p90: 0.193 },
} as const;

describe('time model accuracy on the shipped throughput set', () => {
  it('scores every scorable case (112: 103 out of sample, 9 in sample) with a finite estimate', () => {
    expect(rows.length).toBe(112);
    expect(
      rows
        .filter((r) => r.inSample)
        .map((r) => r.id)
        .sort(),
    ).toEqual([
      'fsdpqlora-70b-a6000adax2',
      'fsdpqlora-70b-a6000adax4',
      'gptfast-l2-7b-int4',
      'gptfast-l2-7b-int8',
      'torchtitan-t1-compile',
      'torchtitan-t1-fsdp',
      'torchtitan-t3-compile',
      'torchtitan-t3-fsdp',
      'torchtune-readme-06',
    ]);
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['training', 'decode']));
    for (const r of rows) expect(Number.isFinite(r.estimated) && r.estimated > 0, r.id).toBe(true);
  });

  for (const [group, bar] of Object.entries(OUT_OF_SAMPLE_BARS))
    it(`${group} (out of sample): ${bar.count} rows, median <= ${bar.median * 100}%, p90 <= ${bar.p90 * 100}%`, () => {
      const s = summary[group]!;
      expect(s.count).toBe(bar.count);
      expect(s.medianAbsError).toBeLessThanOrEqual(bar.median);
      expect(s.p90AbsError).toBeLessThanOrEqual(bar.p90);
    });

  it(`overall median |error| <= ${THROUGHPUT_TARGETS.median * 100} % and kind medians <= ${THROUGHPUT_TARGETS.kindMedian * 100} % (issue 11)`, () => {
    expect(summary.all!.medianAbsError).toBeLessThanOrEqual(THROUGHPUT_TARGETS.median);
    for (const kind of ['training', 'decode'])
      expect(summary[`kind:${kind}`]!.medianAbsError).toBeLessThanOrEqual(
        THROUGHPUT_TARGETS.kindMedian,
      );
  });

  it('in-sample rows are summarized apart, never in the headline', () => {
    expect(summary['in-sample:all']!.count).toBe(9);
    expect(summary.all!.count + summary['in-sample:all']!.count).toBe(rows.length);
  });

  // Row by row against the published number (trust high/medium rows whose mechanism the time model has): the
  // measured value in calibration/throughput.json is the source's figure, not the code's own formula.
  const published: [string, number][] = [
    ['gptfast-l2-7b-bf16', 0.15],
    ['gptfast-l31-8b-bf16', 0.15],
    ['gptfast-l2-70b-int8', 0.3],
    ['torchtune-readme-01', 0.2],
  ];
  for (const [id, tol] of published)
    it(`${id}: within ${tol * 100}% of the published speed`, () => {
      const r = rows.find((x) => x.id === id)!;
      expect(Math.abs(r.error), `${r.estimated} vs ${r.measured}`).toBeLessThanOrEqual(tol);
    });
});
