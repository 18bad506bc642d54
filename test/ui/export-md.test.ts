// Markdown exports write numbers as the text report does (thousands separators), with the plan count in
// the report's words.
import { describe, expect, it } from 'vitest';
import { planMarkdown } from '../../src/ui/export-plan.js';
import { formatDuration } from '../../src/ui/format.js';
import { fakeResult } from './fixtures.js';

describe('plan Markdown', () => {
  it('separates thousands in counts, watts and costs, and names the plan count as the report does', () => {
    const r = fakeResult(3);
    r.searched = { ...r.searched, candidates: 1_234_567, feasible: 45_678, distinctPlans: 2_345 };
    r.pruned = [{ code: 'oom', count: 1_188_889 }];
    const p = r.plans[0]!;
    Object.assign(p, {
      cost: { ...p.cost, usd: 12_345.6 },
      power: { ...p.power, wallWatts: 10_240 },
      time: { ...p.time, hours: 24 * 1_234.5 },
    });
    const md = planMarkdown(r);
    expect(md).toContain(
      '1,234,567 candidates searched; 45,678 feasible configurations → 2,345 distinct plans, 3 shown.',
    );
    expect(md).toContain('| out of GPU memory | 1,188,889 |');
    expect(md).toMatch(/\| 1,234\.5 days \| \$12,346 \| 10,240 \|/);
  });

  it('days past a thousand get separators; shorter durations print as before', () => {
    expect(formatDuration(24 * 1_234.56)).toBe('1,234.6 days');
    expect(formatDuration(24 * 3.25)).toBe((3.25).toFixed(1) + ' days');
    expect(formatDuration(5.5)).toBe('5.5 h');
  });
});
