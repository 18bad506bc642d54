// The search's Pareto front over (cost, hours, watts) against brute force: a candidate whose plan the
// distinct-plan count already holds skips the front (loop.ts keepCandidate), and the front must still be every
// offered point no other point dominates, the earliest of equal points, whatever the order and repeats.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyLoopState, keepCandidate, type Loop } from '../../src/core/plan/loop.js';

/** The loop state and the fields of a search pass keepCandidate reads. */
function loopOf(keep: number): Loop {
  return {
    st: emptyLoopState(4),
    lim: { keep, rankIdx: [0, 1, 2] },
    keys: { k0: 0, k1: 0, k2: 0 },
    cand: { cost: 0, hours: 0, watts: 0, tps: 0, makeHours: 0 },
  } as unknown as Loop;
}

const dominatesOrEquals = (a: number[], b: number[]) => a.every((x, i) => x <= b[i]!);

describe('the Pareto front', () => {
  it('holds exactly the undominated candidates, the first of equals, with repeated plans', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3 }),
            fc.integer({ min: 0, max: 1 }),
            fc.integer({ min: 1, max: 6 }),
            fc.integer({ min: 1, max: 6 }),
            fc.integer({ min: 1, max: 6 }),
          ),
          { maxLength: 300 },
        ),
        (cands) => {
          const L = loopOf(5);
          cands.forEach(([h, l, cost, hours, watts], i) => {
            L.st.seq = i + 1;
            Object.assign(L.cand, { cost, hours, watts, tps: 1, makeHours: 0 });
            keepCandidate(L, i, h, l);
          });
          const objs = cands.map(([, , c, t, w]) => [c, t, w]);
          const expected = objs
            .map((o, i) => ({ o, i }))
            .filter(
              ({ o, i }) =>
                !objs.some(
                  (p, j) =>
                    (dominatesOrEquals(p, o) && !dominatesOrEquals(o, p)) ||
                    (j < i && dominatesOrEquals(p, o) && dominatesOrEquals(o, p)),
                ),
            )
            .map(({ i }) => i);
          expect(L.st.front.map((k) => k.row).sort((a, b) => a - b)).toEqual(expected);
          expect(L.st.feasible).toBe(cands.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
