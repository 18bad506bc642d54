// Service levels: an SLO no layout meets names the nearest plan and the most concurrency that meets it;
// a replica's capacity at the SLO sizes the fleet; fp8 KV and prefix caching as searched / scenario options.
import { afterAll, describe, expect, it } from 'vitest';
import {
  chooseFleet,
  maxConcurrencyAtSlo,
  plan,
  planFleet,
  type FleetCandidate,
} from '../../src/core/plan/index.js';
import { inputOf } from './plan-input.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { renderFleet, renderPlanText } from '../../src/ui/plan-text.js';
import { planJson } from '../../src/ui/plan-json.js';

afterAll(() => closeJslpWorkers());

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

const replica = (
  planId: string,
  rps: number,
  usd: number,
  kind: 'owned' | 'rent' = 'rent',
): FleetCandidate => ({
  kind,
  gpuId: `gpu-${planId}`,
  offerId: kind === 'rent' ? `offer-${planId}` : null,
  gpusPerReplica: 1,
  concurrency: 1,
  powerLimitFraction: 1,
  tokensPerSecond: rps * 500,
  requestsPerSecond: rps,
  usdPerHour: usd,
  planId,
});

describe('the fleet at a requests/s demand', () => {
  it('replicas needed = ceil(rps / per-replica capacity at the SLO), least $/h', async () => {
    const f = await chooseFleet([replica('a', 1.9, 1)], {
      budgetUsdPerHour: null,
      maxGpus: null,
      owned: {},
      requestsPerSecond: 5,
    });
    expect(f.status).toBe('optimal');
    expect(f.replicas[0]!.count).toBe(3);
    expect(f.demand!.requestsPerSecond).toBe(5);
    expect(f.demand!.sustainedRequestsPerSecond).toBeCloseTo(5.7, 9);
    expect(renderFleet(f)).toContain(
      'demand 5 req/s at the SLO: one gpu-a replica sustains 1.9 req/s → ceil(5 / 1.9) = 3 replicas',
    );
  });

  it('mixes kinds for the cheapest fleet and says when the demand cannot be met', async () => {
    // 2 owned at 1 req/s for $0.05/h each, then rented 3 req/s for $2/h: 5 req/s = 2 owned + 1 rented.
    const c = [replica('o', 1, 0.05, 'owned'), replica('r', 3, 2)];
    const limits = {
      budgetUsdPerHour: null,
      maxGpus: null,
      owned: { 'gpu-o': 2 },
      requestsPerSecond: 5,
    };
    const f = await chooseFleet(c, limits);
    expect(f.replicas.map((x) => [x.planId, x.count])).toEqual([
      ['r', 1],
      ['o', 2],
    ]);
    const none = await chooseFleet(c, { ...limits, budgetUsdPerHour: 1 });
    expect(none.status).toBe('infeasible');
    expect(none.note).toMatch(/no fleet sustains 5 requests\/s at the SLO/);
  });

  it('the shipped mixed fleet with a demand: per-replica capacity from each plan, sustained ≥ demand', async () => {
    const input = inputOf('serve-mixed-fleet.yaml', (s) => {
      if (s.job.kind === 'inference') {
        s.job.requestsPerSecond = 0.5;
        s.job.context = 2048;
        s.job.slo = { ttftMs: 2000, tpotMs: 80 };
        s.job.promptTokens = 1024;
      }
    });
    const f = (await planFleet(input))!;
    expect(f.status).toBe('optimal');
    expect(f.demand!.sustainedRequestsPerSecond).toBeGreaterThanOrEqual(0.5);
    for (const r of f.replicas) expect(r.requestsPerSecond).toBeGreaterThan(0);
    expect(renderFleet(f)).toMatch(/demand 0.5 req\/s at the SLO/);
  });
});
