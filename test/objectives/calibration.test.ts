/**
 * Published preference / RL figures (calibration/rl-cases.json): the shipped rows, listed by
 * objective in `validate`, every scored one within the band `estimate` reports; rows reported apart say why.
 */
import { describe, expect, it } from 'vitest';
import { rlRows } from '../../src/commands/validate-rl.js';
import { loadRlCases } from '../../src/io/load-calibration.js';
import { renderRlSection } from '../../src/ui/validate-rl-text.js';

const rows = rlRows();

describe('preference / RL calibration rows', () => {
  it('ships the published rows, each with a source, a quote and a date', () => {
    expect(rows.length).toBe(6);
    expect(rows.filter((r) => r.reportedApart === undefined).map((r) => r.id)).toEqual([
      'trl-pr5926-dpo-qwen2.5-0.5b',
    ]);
    for (const c of loadRlCases()) {
      expect(c.source).toMatch(/^https:\/\//);
      expect(c.quote.length).toBeGreaterThan(20);
      if (c.metric !== 'max-context') expect(c.measured_bytes).toBeGreaterThan(0);
      else expect(c.published_max_tokens).toBeGreaterThan(0);
    }
  });

  it('every scored row lies within the band estimate reports; the rest are reported apart with a reason', () => {
    for (const r of rows) {
      if (r.reportedApart !== undefined) {
        expect(r.reportedApart.length).toBeGreaterThan(20);
        continue;
      }
      expect(r.metric === 'max-context' ? Math.abs(r.error!) <= 0.2 : r.withinBand).toBe(true);
    }
  });

  it('byte rows (device, allocated) carry an estimate and its error', () => {
    for (const r of rows.filter((x) => x.metric !== 'max-context')) {
      expect(r.estimated).toBeGreaterThan(0);
      expect(r.error).toBeCloseTo((r.estimated! - r.published) / r.published, 10);
    }
  });

  it('compares an allocated row with allocatedBytes, not deviceBytes (like with like)', () => {
    const dpo = rows.find((r) => r.id === 'trl-pr5926-dpo-qwen2.5-0.5b')!;
    expect(dpo.metric).toBe('allocated');
    // huggingface/trl#5926's 'After' peak, 15531 MiB (torch max_memory_allocated).
    expect(dpo.published).toBe(15531 * 2 ** 20);
    expect(dpo.estimated!).toBeLessThan(dpo.published / (1 - 0.11));
    expect(dpo.withinBand).toBe(true);
  });

  it('validate lists them by objective', () => {
    const objectives = rows.map((r) => r.objective);
    expect(objectives).toEqual([...objectives].sort());
    const text = renderRlSection(rows).join('\n');
    for (const r of rows) expect(text).toContain(r.id);
    expect(text).toContain('1 of 1 scored rows within the estimate');
  });
});
