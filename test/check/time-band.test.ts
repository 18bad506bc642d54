/**
 * The check's time bands are the time model's p90 absolute error per kind on the shipped speed set, rounded up
 * (TIME_UNCERTAINTY): this fails when they drift from what `validate --throughput` measures, or when docs/check.md
 * quotes another.
 */
import { readFileSync } from 'node:fs';
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

  it('docs/check.md quotes each band as TIME_UNCERTAINTY holds it', () => {
    const doc = readFileSync(new URL('../../docs/check.md', import.meta.url), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    const b = TIME_UNCERTAINTY;
    expect(doc).toContain(`training ${b.training.toFixed(2)}`);
    expect(doc).toContain(`RL steps' ${b.rl.toFixed(2)}`);
    expect(doc).toContain(
      `serving ${b.serving.toFixed(2)} (vLLM, SGLang), decode ${b.decode.toFixed(2)}`,
    );
  });
});
