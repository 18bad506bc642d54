// The circuit MIP through solveMip: nodes and power limits onto circuits, slowest GPU as fast as possible.
import { afterAll, describe, expect, it } from 'vitest';
import { assignCircuits, circuitMip } from '../../src/core/hardware/index.js';
import { closeJslpWorkers, parseMipModel } from '../../src/solve/index.js';

afterAll(() => closeJslpWorkers());

describe('assignCircuits', () => {
  it('lowers the power limit until three 4-GPU nodes fit two 15 A circuits', async () => {
    // Levels 100 % / 80 %: node wall W 1,739 / 1,435 (4× 3090 at 350 / 280 W + 200 W, ÷ 0.92).
    // Two circuits of 1,440 W hold at most one node each at 80 %: three nodes cannot fit → infeasible.
    const unit = (id: string) => ({ id, gpus: 4, wallWatts: [1739, 1435] });
    const caps = [
      { id: 'a', volts: 120, continuousWatts: 1440 },
      { id: 'b', volts: 120, continuousWatts: 1440 },
    ];
    const none = await assignCircuits([unit('n1'), unit('n2'), unit('n3')], caps, [1, 0.91]);
    expect(none.status).toBe('infeasible');
    // Two nodes: each on its own circuit at 80 % (1,435 ≤ 1,440); 100 % would be over; pace = 0.91.
    const two = await assignCircuits([unit('n1'), unit('n2')], caps, [1, 0.91]);
    expect(two.status).toBe('optimal');
    expect(two.minThroughput).toBeCloseTo(0.91, 6);
    expect(two.units.map((u) => u.level)).toEqual([1, 1]);
    expect(Object.values(two.loadW).sort()).toEqual([1435, 1435]);
  });

  it('places alike nodes by count: every node once, each circuit within its limit', async () => {
    // Four full 8-GPU nodes (2,800 W) and a partial 3-GPU node (1,200 W) on three identical 5,760 W circuits:
    // two full nodes fill a circuit (5,600 W), so the partial node goes where one full node is or none is.
    const full = (id: string) => ({ id, gpus: 8, wallWatts: [2800] });
    const units = [
      full('n1'),
      full('n2'),
      full('n3'),
      full('n4'),
      { id: 'n5', gpus: 3, wallWatts: [1200] },
    ];
    const caps = ['a', 'b', 'c'].map((id) => ({ id, volts: 240, continuousWatts: 5760 }));
    const r = await assignCircuits(units, caps, [1]);
    expect(r.status).toBe('optimal');
    expect(r.units.map((u) => u.unit)).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    for (const c of caps) expect(r.loadW[c.id]!).toBeLessThanOrEqual(c.continuousWatts);
    expect(Object.values(r.loadW).reduce((a, w) => a + w, 0)).toBe(4 * 2800 + 1200);
    // Seven full nodes cannot fit three circuits that carry two each.
    const five = await assignCircuits(
      [...units.slice(0, 4), full('n5'), full('n6'), full('n7')],
      caps,
      [1],
    );
    expect(five.status).toBe('infeasible');
  });
});

describe('circuitMip', () => {
  // assignCircuits hands its model to solveMip as trusted (no schema check): the builder must pass it.
  it('builds models the MIP schema accepts, for one or several classes and levels', () => {
    const caps = [
      { id: 'a', volts: 240, continuousWatts: 5760 },
      { id: 'b', volts: 240, continuousWatts: 5760 },
      { id: 'c', volts: 120, continuousWatts: 1440 },
    ];
    const node = (id: string, gpus: number, w: number[]) => ({ id, gpus, wallWatts: w });
    const cases = [
      { units: [node('n1', 8, [2800]), node('n2', 8, [2800])], levels: [1] },
      { units: [node('n1', 8, [2800]), node('n2', 3, [1200])], levels: [1] },
      {
        units: [
          node('n1', 4, [1739, 1435]),
          node('n2', 4, [1739, 1435]),
          node('n3', 2, [900, 760]),
        ],
        levels: [1, 0.91],
      },
    ];
    for (const c of cases) {
      const model = circuitMip(c.units, caps, c.levels);
      expect(parseMipModel(model)).toEqual(model);
      expect(model.integers.length + (model.binaries?.length ?? 0)).toBeGreaterThan(0);
    }
  });
});
