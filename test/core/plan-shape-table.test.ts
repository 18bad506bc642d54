// The search visits only the layouts whose shape some engine variant runs (plan/shape-table.ts runnableLayouts),
// in the order it would have met them walking every layout: each layout index once, ascending.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { membersAtLeast } from '../../src/core/plan/objective.js';
import {
  runnableLayouts,
  searchedAt,
  searchedOf,
  type ShapeTable,
} from '../../src/core/plan/shape-table.js';

/** A table of `n` layouts over `shapes` shapes (layout i has shape i mod shapes, or none where i mod 5 is 4). */
function table(n: number, shapes: number): ShapeTable {
  const members: number[][] = Array.from({ length: shapes }, () => []);
  const accum = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (i % 5 === 4) continue; // the micro-batch skips it
    accum[i] = 1;
    members[i % shapes]!.push(i);
  }
  return { shapes: members.map((_, k) => k * 2), members, accum, searched: new Map() };
}

describe('runnableLayouts', () => {
  it('lists the layouts of runnable shapes once each, ascending, at either micro-batch slot', () => {
    for (const [n, shapes] of [
      [40, 3],
      [100, 7],
      [9, 1],
    ] as const) {
      const t = table(n, shapes);
      for (const slot of [0, 256]) {
        const runList: number[][] = new Array<number[]>(512).fill([]);
        // Every other shape runs on some variant.
        t.shapes.forEach((sh, k) => (runList[slot + sh] = k % 2 === 0 ? [0] : []));
        const order = { at: new Int32Array(0) };
        const k = runnableLayouts(t, runList, slot, order);
        const got = Array.from(order.at.subarray(0, k));
        const want: number[] = [];
        for (let i = 0; i < n; i++) if (t.accum[i]! > 0 && (i % shapes) % 2 === 0) want.push(i);
        expect(got).toEqual(want);
      }
    }
  });

  it('lists none where no shape runs', () => {
    const order = { at: new Int32Array(4) };
    expect(runnableLayouts(table(20, 4), new Array<number[]>(512).fill([]), 0, order)).toBe(0);
  });
});

// A pruned shape's searched layouts (forEachRunnable's prune counts) are counted once per table, server size and
// least count (shape-table.ts searchedOf), where they were counted per configuration (membersAtLeast).
describe('searchedAt', () => {
  it('equals membersAtLeast for every shape, server and least count, asked in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 60, maxLength: 60 }),
        fc.array(
          fc.record({
            k: fc.nat(),
            server: fc.integer({ min: 0, max: 4 }),
            least: fc.integer({ min: 1, max: 8 }),
          }),
          { maxLength: 40 },
        ),
        (n, shapes, counts, asks) => {
          const t = table(n, shapes);
          const layouts = counts.map((count) => ({ count }));
          for (const a of asks) {
            const k = a.k % t.shapes.length;
            const got = searchedAt(
              t,
              searchedOf(t, a.server, a.least),
              k,
              layouts,
              a.server,
              a.least,
            );
            expect(got).toBe(membersAtLeast(t.members[k]!, layouts, a.server, a.least));
          }
        },
      ),
    );
  });
});
