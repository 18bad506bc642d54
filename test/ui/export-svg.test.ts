// The SVG export reads on its own: axes with units, a legend naming every component drawn, one capacity
// marker per plan, tick labels that differ, and labels kept inside their column.
import { describe, expect, it } from 'vitest';
import { planScenarioFile } from '../../src/io/plan-scenario.js';
import { planSvg, wrapWords } from '../../src/ui/export-svg.js';
import { COMPONENT_LABEL } from '../../src/ui/messages.js';

describe('plan SVG', () => {
  it('labels axes, legend, capacities and ticks', async () => {
    const r = await planScenarioFile('scenarios/70b-qlora-rent-cheapest.yaml', { top: 10 });
    const svg = planSvg(r);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('GiB per GPU (2^30 bytes)');
    expect(svg).toMatch(/job cost \(USD/);
    for (const [k, label] of Object.entries(COMPONENT_LABEL))
      if (r.plans.some((p) => (p.memory.breakdown as unknown as Record<string, number>)[k]! > 0))
        expect(svg).toContain(`>${label.replace(/&/g, '&amp;')}</text>`);
    expect(svg.match(/stroke-dasharray="4 2"><title>capacity/g)?.length).toBe(r.plans.length);
    const usdTicks = [...svg.matchAll(/text-anchor="middle">(\$[\d.]+)<\/text>/g)].map((m) => m[1]);
    expect(usdTicks.length).toBeGreaterThan(1);
    expect(new Set(usdTicks).size).toBe(usdTicks.length);
  });

  it('wraps technique text to the label column', () => {
    const lines = wrapWords('qlora nf4+dq, adamw, ckpt none, flash, mb 1×16, ZeRO-3', 20);
    expect(lines.every((l) => l.length <= 20)).toBe(true);
    expect(lines.join(' ')).toBe('qlora nf4+dq, adamw, ckpt none, flash, mb 1×16, ZeRO-3');
  });
});
