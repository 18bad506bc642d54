// Service levels: an SLO no layout meets names the nearest plan and the most concurrency that meets it;
// a replica's capacity at the SLO sizes the fleet; fp8 KV and prefix caching as searched / scenario options.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { maxConcurrencyAtSlo, plan, type PlanInput } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { renderPlanText } from '../../src/ui/plan-text.js';
import { planJson } from '../../src/ui/plan-json.js';
import type { Scenario } from '../../src/schema/scenario.js';

afterAll(() => closeJslpWorkers());

export const inputOf = (file: string, edit: (s: Scenario) => void = () => {}): PlanInput => {
  const s = loadScenario(join('scenarios', file));
  edit(s);
  const hw = resolveHardware(s);
  return { scenario: s, arch: resolveModel(s.model), hardware: hw.options, circuits: hw.circuits };
};

describe('an SLO no layout meets', () => {
  it('bisects concurrency downward on monotone times', () => {
    const at = (b: number) => ({ ttft: 0.1 + b * 0.01, tpot: 0.01 + b * 0.001 });
    expect(maxConcurrencyAtSlo(at, 64, { tpotMs: 30 })).toBe(20);
    expect(maxConcurrencyAtSlo(at, 64, { tpotMs: 100 })).toBe(64);
    expect(maxConcurrencyAtSlo(at, 64, { ttftMs: 50 })).toBe(0);
  });

  it('names the nearest plan, its TTFT/TPOT and the largest concurrency meeting the SLO', () => {
    const input = inputOf('serve-8b-64-users-24gb.yaml', (s) => {
      if (s.job.kind === 'inference') s.job.slo = { ttftMs: 1500, tpotMs: 15 };
    });
    const r = plan(input);
    expect(r.fits).toBe(false);
    const n = r.sloNearest!;
    expect(n).toBeDefined();
    expect(n.gpuId).toBe('rtx-4090');
    expect(n.concurrency).toBe(64);
    expect(n.tpotSeconds * 1000).toBeGreaterThan(15);
    expect(n.maxConcurrency).toBeGreaterThan(0);
    expect(n.maxConcurrency).toBeLessThan(64);
    expect(n.tpotSecondsAtMax! * 1000).toBeLessThanOrEqual(15);
    const line = renderPlanText(r)
      .split('\n')
      .find((l) => l.startsWith('SLO ('));
    expect(line).toMatch(
      /TPOT ≤ 15 ms\) not met: nearest plan 1× rtx-4090 .* at most \d+ concurrent/,
    );
    const json = planJson(r) as { sloNearest: { message: string; maxConcurrency: number } };
    expect(json.sloNearest.maxConcurrency).toBe(n.maxConcurrency);
    expect(json.sloNearest.message).toBe(line);
  });

  it('is absent when a plan meets the SLO', () => {
    expect(plan(inputOf('serve-8b-64-users-24gb.yaml')).sloNearest).toBeUndefined();
  });
});
