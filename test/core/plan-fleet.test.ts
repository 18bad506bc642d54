// The serving-fleet MIP: hand-computed optima for tiny inputs, and the shipped example against brute force.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chooseFleet,
  fleetCandidates,
  fleetLimits,
  plan,
  planFleet,
  planReplicas,
  pruneCandidates,
  type FleetCandidate,
} from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { closeJslpWorkers } from '../../src/solve/index.js';

afterAll(() => closeJslpWorkers());

const cand = (
  planId: string,
  kind: 'owned' | 'rent',
  gpuId: string,
  gpus: number,
  tps: number,
  usd: number,
): FleetCandidate => ({
  kind,
  gpuId,
  offerId: kind === 'rent' ? `${gpuId}-offer` : null,
  gpusPerReplica: gpus,
  concurrency: 1,
  powerLimitFraction: 1,
  tokensPerSecond: tps,
  usdPerHour: usd,
  planId,
});

// A1: one owned GPU, 100 tok/s, $0.05/h; A2: both owned GPUs as one replica, 210 tok/s, $0.10/h (2 owned).
// B: rented GPU, 300 tok/s, $1.50/h; C: rented GPU, 500 tok/s, $2.40/h (best tokens per dollar of the two).
const A1 = cand('a1', 'owned', 'gpu-a', 1, 100, 0.05);
const A2 = cand('a2', 'owned', 'gpu-a', 2, 210, 0.1);
const B = cand('b', 'rent', 'gpu-b', 1, 300, 1.5);
const C = cand('c', 'rent', 'gpu-c', 1, 500, 2.4);
const counts = (f: { replicas: { planId: string; count: number }[] }) =>
  Object.fromEntries(f.replicas.map((r) => [r.planId, r.count]));

/** The fleet search's input for a scenario: its model and its resolved hardware and circuits. */
const fleetInputOf = (s: ReturnType<typeof loadScenario>) => {
  const hw = resolveHardware(s);
  return { scenario: s, arch: resolveModel(s.model), hardware: hw.options, circuits: hw.circuits };
};

describe('chooseFleet', () => {
  it('beats tokens-per-dollar greedy under a budget', async () => {
    // Budget $3.10/h. Greedy by tok/$: A (owned) first, then C ($2.40) → $0.6 left, nothing else: 210 + 500 = 710.
    // Optimum: A2 ($0.10, 210) + 2 × B ($3.00, 600) = 810 tok/s at $3.10/h (A1 × 2 = 200 < A2's 210 on the
    // same two GPUs; A2 + C + anything is over; 2 × B + C is $5.40).
    const f = await chooseFleet([A1, A2, B, C], {
      budgetUsdPerHour: 3.1,
      maxGpus: null,
      owned: { 'gpu-a': 2 },
    });
    expect(f.status).toBe('optimal');
    expect(counts(f)).toEqual({ a2: 1, b: 2 });
    expect(f.tokensPerSecond).toBeCloseTo(810, 9);
    expect(f.usdPerHour).toBeCloseTo(3.1, 9);
    expect(f.gpus).toBe(4);
  });

  it('respects maxGpus', async () => {
    // Same, at most 3 GPUs: A2 + C = 710 tok/s, $2.50/h, 3 GPUs. Others: A1 + 2 × B = 700; B + C = 800 is $3.90.
    const f = await chooseFleet([A1, A2, B, C], {
      budgetUsdPerHour: 3.1,
      maxGpus: 3,
      owned: { 'gpu-a': 2 },
    });
    expect(counts(f)).toEqual({ a2: 1, c: 1 });
    expect(f.tokensPerSecond).toBeCloseTo(710, 9);
    expect(f.gpus).toBe(3);
  });

  it('uses all owned GPUs when there is no budget, and refuses unbounded renting', async () => {
    const owned = await chooseFleet([A1, A2], {
      budgetUsdPerHour: null,
      maxGpus: null,
      owned: { 'gpu-a': 2 },
    });
    expect(counts(owned)).toEqual({ a2: 1 }); // 210 > 2 × 100
    const open = await chooseFleet([A1, B], {
      budgetUsdPerHour: null,
      maxGpus: null,
      owned: { 'gpu-a': 2 },
    });
    expect(open.status).toBe('skipped');
    expect(open.note).toMatch(/budgetUsdPerHour/);
    const broke = await chooseFleet([B, C], { budgetUsdPerHour: 1, maxGpus: null, owned: {} });
    expect(broke.replicas).toEqual([]);
    expect(broke.tokensPerSecond).toBe(0);
  });
});

describe('pruneCandidates', () => {
  it('keeps per source and size only replicas not beaten on both tokens/s and $/h', () => {
    const slowDear = cand('x', 'rent', 'gpu-b', 1, 250, 1.6);
    const slowCheap = cand('y', 'rent', 'gpu-b', 1, 250, 1.0);
    expect(pruneCandidates([B, slowDear, slowCheap]).map((c) => c.planId)).toEqual(['b', 'y']);
  });
});

describe('the shipped serve-mixed-fleet example', () => {
  const file = join(import.meta.dirname, '..', '..', 'scenarios', 'serve-mixed-fleet.yaml');
  const s = loadScenario(file);
  const input = fleetInputOf(s);

  it('matches a brute-force search over the same candidates', async () => {
    const cands = fleetCandidates(input);
    const limits = fleetLimits(input);
    expect(cands.length).toBeGreaterThan(3);
    expect(cands.length).toBeLessThanOrEqual(40);
    const f = await planFleet(input);
    expect(f?.status).toBe('optimal');
    // Every integer vector within the per-variable bounds, checked against the three kinds of row.
    const hi = cands.map((c) =>
      Math.min(
        c.kind === 'owned' ? Math.floor(limits.owned[c.gpuId]! / c.gpusPerReplica) : Infinity,
        Math.floor(limits.maxGpus! / c.gpusPerReplica),
        Math.floor(limits.budgetUsdPerHour! / c.usdPerHour),
      ),
    );
    let best = 0;
    const n = new Array<number>(cands.length).fill(0);
    // The replicas' shares of the concurrency add up to the job's (replicas.ts).
    const users = limits.concurrency!;
    const walk = (
      i: number,
      usd: number,
      gpus: number,
      tps: number,
      used: Record<string, number>,
      shares: number,
    ) => {
      if (i === cands.length) {
        if (shares === users) best = Math.max(best, tps);
        return;
      }
      const c = cands[i]!;
      for (let k = 0; k <= hi[i]!; k++) {
        const u = usd + k * c.usdPerHour;
        const g = gpus + k * c.gpusPerReplica;
        const own = c.kind === 'owned' ? (used[c.gpuId] ?? 0) + k * c.gpusPerReplica : 0;
        if (
          u > limits.budgetUsdPerHour! + 1e-9 ||
          g > limits.maxGpus! ||
          shares + k * c.concurrency > users ||
          (c.kind === 'owned' && own > limits.owned[c.gpuId]!)
        )
          break;
        n[i] = k;
        walk(
          i + 1,
          u,
          g,
          tps + k * c.tokensPerSecond,
          c.kind === 'owned' ? { ...used, [c.gpuId]: own } : used,
          shares + k * c.concurrency,
        );
      }
    };
    walk(0, 0, 0, 0, {}, 0);
    expect(f!.tokensPerSecond).toBeCloseTo(best, 6);
    expect(f!.usdPerHour).toBeLessThanOrEqual(5 + 1e-9);
    expect(f!.gpus).toBeLessThanOrEqual(8);
    // The replicas serve the job's 8 users between them, as the ranked plans' replicas do (replicas.ts).
    expect(f!.replicas.reduce((a, r) => a + r.count * r.concurrency, 0)).toBe(users);
  });

  it("reads each GPU source's ranked plans as plan() ranks and reports them", () => {
    // planReplicas skips a plan's memory, power and front: the figures it keeps must be plan()'s own.
    let serving = 0;
    for (const h of input.hardware) {
      const one = { ...input, hardware: [h], top: 60 };
      const full = plan(one).plans;
      const light = planReplicas(one);
      expect(light.map((p) => p.id)).toEqual(full.map((p) => p.id));
      light.forEach((p, i) => {
        const q = full[i]!;
        expect(p.choices).toEqual({
          method: q.choices.method,
          tp: q.choices.tp,
          pp: q.choices.pp,
          dp: q.choices.dp,
          ...(q.choices.weightsToMake ? { weightsToMake: q.choices.weightsToMake } : {}),
        });
        expect(p.hardware).toEqual({
          kind: q.hardware.kind,
          gpuId: q.hardware.gpuId,
          offerId: q.hardware.offerId,
          powerLimitFraction: q.hardware.powerLimitFraction,
        });
        expect(p.time).toEqual({
          tokensPerSecond: q.time.tokensPerSecond,
          hours: q.time.hours,
          ttftSeconds: q.time.ttftSeconds,
          tpotSeconds: q.time.tpotSeconds,
        });
        expect(p.cost.usd).toBe(q.cost.usd);
        expect(p.cost.quantizeUsd).toBe(q.cost.quantizeUsd);
        expect(p.options).toEqual(q.options);
        if (q.time.ttftSeconds !== undefined) serving++;
      });
    }
    expect(serving).toBeGreaterThan(10);
  });
});

describe("the fleet splits the job's concurrency over its replicas", () => {
  // gpt-oss-120b for 32 users on two owned RTX PRO 6000: one TP2 server of 32, two servers of 16 or one of 32.
  const s = loadScenario(
    join(import.meta.dirname, '..', '..', 'scenarios', 'serve-70b-awq-2x48gb.yaml'),
  );
  s.model = 'gpt-oss-120b';
  s.job = { kind: 'inference', context: 16384, concurrency: 32, outputTokens: 100_000_000 };
  s.hardware = {
    ...s.hardware,
    owned: [{ gpu: 'rtx-pro-6000-blackwell', count: 2 }],
    counts: { min: 1, max: 2 },
  };
  s.power = { ...s.power, circuits: [] };
  s.rank = 'time';
  s.expect = undefined;
  const input = fleetInputOf(s);

  it('serves 32 users in all, as fast as the fastest ranked plan on the same two GPUs', async () => {
    const f = (await planFleet(input))!;
    expect(f.status).toBe('optimal');
    expect(f.replicas.reduce((a, r) => a + r.count * r.concurrency, 0)).toBe(32);
    // Every fleet of these two GPUs is one of the ranked layouts (TP2, two replicas of 16, one of 32).
    const fastest = Math.max(
      ...plan({ ...input, top: 40 }).plans.map((p) => p.time.tokensPerSecond),
    );
    expect(f.tokensPerSecond / fastest).toBeCloseTo(1, 9);
  });
});
