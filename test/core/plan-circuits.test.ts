// The circuit MIP over the reported plans: placements re-solved by solveMip and checked against the caps here.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { plan, type PlanInput } from '../../src/core/plan/index.js';
import { planUnits, refineCircuits } from '../../src/core/plan/index.js';
import { assignCircuits, firstFit, type PowerUnit } from '../../src/core/hardware/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { resolveHardware } from '../../src/io/load-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { closeJslpWorkers } from '../../src/solve/index.js';

afterAll(() => closeJslpWorkers());

// 6× RTX 3090 (350 W) at 100 %, 2 per node, 200 W system draw, gold PSU at 120 V (η = 0.90):
// one node draws (2 × 350 + 200) / 0.90 = 1,000 W at the wall; three nodes = 3,000 W.
// Circuits: 120 V × 15 A × 0.8 = 1,440 W and 120 V × 25 A × 0.8 = 2,400 W. The 1,440 W one holds one node
// (two would be 2,000 W); the 2,400 W one holds two (2,000 ≤ 2,400) → the only placement is 1,000 + 2,000 W.
const scenario = scenarioSchema.parse({
  name: 'six 3090s on two circuits',
  model: 'tinyllama-1.1b',
  job: { kind: 'inference', context: 2048, concurrency: 6, outputTokens: 1_000_000 }, // one sequence per replica
  hardware: { owned: [{ gpu: 'rtx-3090', count: 6 }], gpusPerNode: 2, counts: { min: 6, max: 6 } },
  power: {
    circuits: [
      { id: 'small', volts: 120, amps: 15 },
      { id: 'big', volts: 120, amps: 25 },
    ],
    systemDrawW: 200,
    powerLimits: [1],
  },
  search: { weights: ['bf16'], attention: ['sdpa'] },
});

function inputWith(circuits?: PlanInput['circuits']): PlanInput {
  const hw = resolveHardware(scenario);
  return {
    scenario,
    arch: resolveModel(scenario.model),
    hardware: hw.options,
    circuits: circuits ?? hw.circuits,
    top: 3,
  };
}

describe('refineCircuits', () => {
  it('re-places the greedy loads optimally, within every cap', async () => {
    const input = inputWith();
    const before = plan(input);
    expect(before.plans.length).toBeGreaterThan(0);
    expect(before.plans[0]!.power.assignment).toBe('greedy');
    const units = planUnits(before.plans[0]!, input);
    expect(units.map((u) => Math.round(u.wallWatts[0]!))).toEqual([1000, 1000, 1000]);
    const after = await refineCircuits(before, input);
    for (const p of [...after.plans, ...after.front]) {
      expect(p.power.assignment).toBe('mip');
      expect(p.power.solver?.status).toBe('optimal');
      const loads = p.power.perCircuit;
      for (const c of loads) expect(c.loadW).toBeLessThanOrEqual(c.limitW);
      expect(loads.reduce((a, c) => a + c.loadW, 0)).toBe(3000);
      expect(Object.fromEntries(loads.map((c) => [c.circuit, c.loadW]))).toEqual({
        'small#1': 1000,
        'big#2': 2000,
      });
    }
    // Everything but the power block is the search's own.
    expect(after.plans.map((p) => p.id)).toEqual(before.plans.map((p) => p.id));
    expect(after.plans[0]!.cost).toEqual(before.plans[0]!.cost);
  });

  it('keeps greedy and says so when the MIP finds no placement', async () => {
    // Two 1,440 W circuits hold one 1,000 W node each: three nodes cannot fit.
    const before = plan(inputWith());
    const tight = [
      { id: 'a', volts: 120, continuousWatts: 1440 },
      { id: 'b', volts: 120, continuousWatts: 1440 },
    ];
    const after = await refineCircuits(before, inputWith(tight));
    const p = after.plans[0]!;
    expect(p.power.assignment).toBe('greedy');
    expect(p.power.solver?.status).toBe('infeasible');
    expect(p.power.perCircuit).toEqual(before.plans[0]!.power.perCircuit);
  });

  it('places by first-fit without a solver under any variable cap or solve budget', async () => {
    const input = inputWith();
    const before = plan(input);
    for (const opts of [{ maxVariables: 5 }, { maxSolves: 0 }]) {
      const p = (await refineCircuits(before, input, opts)).plans[0]!;
      expect(p.power.assignment).toBe('mip');
      expect(p.power.solver).toMatchObject({ status: 'optimal', backend: null });
      expect(p.power.solver?.note).toMatch(/one power level/);
      expect(p.power.perCircuit.map((c) => c.loadW)).toEqual([1000, 2000]);
    }
  });

  it('skips the proof of infeasibility over the variable cap or past the solve budget', async () => {
    const before = plan(inputWith());
    const tight = inputWith([
      { id: 'a', volts: 120, continuousWatts: 1440 },
      { id: 'b', volts: 120, continuousWatts: 1440 },
    ]);
    const big = await refineCircuits(before, tight, { maxVariables: 5 }); // 3 nodes × 2 circuits = 6
    expect(big.plans[0]!.power.solver).toMatchObject({ status: 'skipped', backend: null });
    expect(big.plans[0]!.power.assignment).toBe('greedy');
    const late = await refineCircuits(before, tight, { maxSolves: 0 });
    expect(late.plans[0]!.power.solver?.note).toMatch(/solver budget spent/);
    // one solve allowed: the MIP proves no placement fits, the same answer whatever the machine's load
    const one = await refineCircuits(before, tight, { maxSolves: 1 });
    expect(one.plans[0]!.power.solver).toMatchObject({ status: 'infeasible', backend: 'highs' });
  });

  it("first-fit places a plan's nodes whenever the circuit MIP finds any placement", async () => {
    // refineOne skips the solver when first-fit fits: exact for identical full nodes plus one smaller
    // partial node, in circuits sorted smallest first. The MIP is the referee on random small cases.
    const cases = fc.sample(
      fc.record({
        full: fc.integer({ min: 0, max: 5 }),
        fullW: fc.integer({ min: 300, max: 2000 }),
        partialShare: fc.option(fc.double({ min: 0.1, max: 0.95, noNaN: true }), { nil: null }),
        caps: fc.array(fc.integer({ min: 200, max: 5000 }), { minLength: 1, maxLength: 4 }),
      }),
      { numRuns: 150, seed: 14 },
    );
    let fits = 0;
    let fails = 0;
    for (const k of cases) {
      const units: PowerUnit[] = [];
      for (let i = 0; i < k.full; i++) units.push({ id: `n${i}`, gpus: 2, wallWatts: [k.fullW] });
      if (k.partialShare !== null)
        units.push({ id: 'last', gpus: 1, wallWatts: [Math.round(k.fullW * k.partialShare)] });
      if (units.length === 0) continue;
      const circuits = [...k.caps]
        .sort((a, b) => a - b)
        .map((w, i) => ({ id: `c${i}`, volts: 120, continuousWatts: w }));
      const ff = firstFit(
        units.map((u) => u.wallWatts[0]!),
        circuits.map((c) => c.continuousWatts),
      ).fits;
      const mip = await assignCircuits(units, circuits, [1]);
      expect(mip.status === 'optimal' ? 'placed' : mip.status, JSON.stringify(k)).toBe(
        ff ? 'placed' : 'infeasible',
      );
      if (ff) fits++;
      else fails++;
    }
    expect(fits).toBeGreaterThan(20);
    expect(fails).toBeGreaterThan(20);
  });

  it('places a one-node plan on the smallest circuit that carries it, as the MIP does, without a solver', async () => {
    // Two GPUs: one 1,000 W node. Circuits smallest first: 900 W (too small), 1,440 W, 2,400 W.
    const circuits = [
      { id: 'c2400', volts: 120, continuousWatts: 2400 },
      { id: 'c900', volts: 120, continuousWatts: 900 },
      { id: 'c1440', volts: 120, continuousWatts: 1440 },
    ];
    const one = scenarioSchema.parse({
      ...scenario,
      hardware: { ...scenario.hardware, counts: { min: 2, max: 2 } },
    });
    const input = { ...inputWith(circuits), scenario: one };
    const before = plan(input);
    const p = (await refineCircuits(before, input)).plans[0]!;
    expect(p.power.assignment).toBe('mip');
    expect(p.power.solver).toMatchObject({ status: 'optimal', backend: null });
    const loads = Object.fromEntries(p.power.perCircuit.map((c) => [c.circuit, c.loadW]));
    expect(loads).toEqual({ c900: 0, c1440: 1000, c2400: 0 });
    // The MIP agrees that this placement is optimal: it reaches the same objective on these circuits.
    const units = planUnits(before.plans[0]!, input);
    const mip = await assignCircuits(
      units,
      [...circuits].sort((a, b) => a.continuousWatts - b.continuousWatts),
      [1],
    );
    expect(mip.status).toBe('optimal');
    expect(mip.minThroughput).toBe(1);
  });

  it('leaves results without circuits untouched', async () => {
    const input = inputWith([]);
    const r = plan(input);
    expect(await refineCircuits(r, input)).toBe(r);
  });
});
