// The times of a Liger pair's rows, kept while the pair is searched (plan/twin-times.ts): a row's time at a GPU option
// and level reads back as written, for that row only, and a slot reused for another row holds none of the old row's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LEVELS } from '../../src/core/plan/context.js';
import { TwinTimes } from '../../src/core/plan/twin-times.js';

const OPTIONS = 3;

/** One step of a search's use: keep or drop a row's times, write or read one entry. */
const opArb = fc.oneof(
  fc.record({ op: fc.constant('keep' as const), r: fc.nat(5) }),
  fc.record({ op: fc.constant('drop' as const), r: fc.nat(5) }),
  fc.record({
    op: fc.constant('write' as const),
    r: fc.nat(5),
    h: fc.nat(OPTIONS - 1),
    l: fc.nat(MAX_LEVELS - 1),
    hours: fc.double({ noNaN: true }),
    tps: fc.double({ noNaN: true }),
  }),
  fc.record({
    op: fc.constant('read' as const),
    r: fc.nat(5),
    h: fc.nat(OPTIONS - 1),
    l: fc.nat(MAX_LEVELS - 1),
  }),
);

describe('TwinTimes', () => {
  it('reads back what was written for a kept row, and nothing for a dropped or never-kept one', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const times = new TwinTimes(OPTIONS);
        // The reference: kept rows, each a map of its entries (a row kept again after a drop starts empty).
        const model = new Map<number, Map<number, { hours: number; tps: number }>>();
        for (const s of ops) {
          if (s.op === 'keep') {
            times.keep(s.r);
            if (!model.has(s.r)) model.set(s.r, new Map());
          } else if (s.op === 'drop') {
            times.drop(s.r);
            model.delete(s.r);
          } else if (s.op === 'write') {
            times.write(s.r, s.h, s.l, { hours: s.hours, tps: s.tps });
            model.get(s.r)?.set(s.h * MAX_LEVELS + s.l, { hours: s.hours, tps: s.tps });
          } else {
            const out = { hours: -1, tps: -1 };
            const want = model.get(s.r)?.get(s.h * MAX_LEVELS + s.l);
            expect(times.read(s.r, s.h, s.l, out)).toBe(want !== undefined);
            expect(out).toEqual(want ?? { hours: -1, tps: -1 });
          }
        }
      }),
    );
  });

  it("a slot handed to another row holds none of its last row's times", () => {
    const times = new TwinTimes(2);
    times.keep(7);
    times.write(7, 1, 3, { hours: 2.5, tps: 100 });
    times.drop(7);
    times.keep(8); // takes row 7's slot
    const out = { hours: 0, tps: 0 };
    expect(times.read(8, 1, 3, out)).toBe(false);
    expect(times.read(7, 1, 3, out)).toBe(false);
    times.write(8, 1, 3, { hours: 4, tps: 50 });
    expect(times.read(8, 1, 3, out)).toBe(true);
    expect(out).toEqual({ hours: 4, tps: 50 });
  });
});
