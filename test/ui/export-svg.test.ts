// The SVG export reads on its own: axes with units, a legend naming every component drawn, one capacity
// marker per plan, tick labels that differ, and labels kept inside their column.
import { describe, expect, it } from 'vitest';
import { planScenarioFile } from '../../src/io/plan-scenario.js';
import { dominatedOnAxes, frontCaption, planSvg, wrapWords } from '../../src/ui/export-svg.js';
import { fakeResult } from './fixtures.js';
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

  it('the caption names the front over its three axes and never calls a plan beaten on both plotted axes undominated', () => {
    const r = fakeResult(3);
    const [a, b, c] = r.plans as [(typeof r.plans)[0], (typeof r.plans)[0], (typeof r.plans)[0]];
    // b is cheaper and faster than c; c stays on the front for its lower wall power.
    Object.assign(a, { cost: { ...a.cost, usd: 1 }, slowdown: 2 });
    Object.assign(b, { cost: { ...b.cost, usd: 2 }, slowdown: 1 });
    Object.assign(c, { cost: { ...c.cost, usd: 3 }, slowdown: 1.5 });
    r.front = [a, b, c];
    expect(dominatedOnAxes(c, r.front)).toBe(true);
    expect(dominatedOnAxes(a, r.front) || dominatedOnAxes(b, r.front)).toBe(false);
    const caption = frontCaption(r);
    expect(caption).toContain('cost, x fastest and wall power');
    expect(caption).not.toContain('no plan is cheaper and faster than these');
    expect(caption).toContain('hollow (1)');
    expect(planSvg(r)).toContain('fill="white" stroke="#0072B2"');
  });

  it('wraps a caption wider than the picture onto lines that fit, and moves the plot below them', () => {
    const r = fakeResult(3);
    const [a, b, c] = r.plans as [(typeof r.plans)[0], (typeof r.plans)[0], (typeof r.plans)[0]];
    Object.assign(a, { cost: { ...a.cost, usd: 1 }, slowdown: 2 });
    Object.assign(b, { cost: { ...b.cost, usd: 2 }, slowdown: 1 });
    Object.assign(c, { cost: { ...c.cost, usd: 3 }, slowdown: 1.5 });
    r.front = [a, b, c];
    const caption = frontCaption(r);
    // 16 px bold at DejaVu Sans Bold's 0.55 em average would need more than the 928 px between margins.
    expect(caption.length * 16 * 0.55).toBeGreaterThan(928);
    const svg = planSvg(r);
    const lines = [
      ...svg.matchAll(
        /<text x="16\.0" y="([\d.]+)" font-size="16" font-weight="bold">([^<]*)<\/text>/g,
      ),
    ];
    const captionLines = lines.filter((m) => !m[2]!.startsWith('Per-GPU memory'));
    expect(captionLines.length).toBeGreaterThan(1);
    expect(captionLines.map((m) => m[2]).join(' ')).toBe(caption);
    for (const m of captionLines) expect(m[2]!.length * 16 * 0.64).toBeLessThanOrEqual(928);
    const lastY = Number(captionLines.at(-1)![1]);
    const plotTop = Number(/<rect x="300" y="([\d.]+)" width="510"/.exec(svg)![1]);
    expect(plotTop).toBeGreaterThan(lastY);
  });
});
