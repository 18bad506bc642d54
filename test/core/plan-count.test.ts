// One plan count: the distinct plans the feasible configurations make do not depend on --top, and ranked
// without a limit the plans are exactly that many; the set behind the count is exact.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CountedPlans, DistinctPlans } from '../../src/core/plan/distinct.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { loadScenario } from '../../src/io/load-scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');

describe('the distinct plan count', () => {
  it.each(['default.yaml', 'serve-8b-64-users-24gb.yaml'])(
    '%s: the same at --top 3 and 10,000; with no limit, plans = distinct plans',
    (f) => {
      const file = join(DIR, f);
      const input = planInputOf(file, loadScenario(file));
      const few = plan({ ...input, top: 3 });
      const all = plan({ ...input, top: 10_000 });
      expect(few.plans).toHaveLength(3);
      expect(few.searched.distinctPlans).toBe(all.searched.distinctPlans);
      expect(all.plans).toHaveLength(all.searched.distinctPlans);
      expect(all.searched.distinctPlans).toBeLessThan(all.searched.feasible);
    },
  );

  it('counts each (option × level, cost, hours, watts) once, through growth, with -0 as 0', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 40 }),
            fc.constantFrom(0, -0, 1.5, 2, 1e-9),
            fc.constantFrom(1, 2, 3.25),
            fc.constantFrom(100, 200),
          ),
          { maxLength: 3000 },
        ),
        (keys) => {
          const set = new DistinctPlans();
          for (const [a, b, c, d] of keys) set.add(a, 0, b, c, d);
          const expected = new Set(keys.map(([a, b, c, d]) => `${a}|${b + 0}|${c}|${d}`));
          expect(set.size).toBe(expected.size);
          for (const [a, b, c, d] of keys) expect(set.add(a, 0, b, c, d)).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('keeps every plan through the table growing past 100,000 entries', () => {
    const set = new DistinctPlans();
    const add = (k: [number, number, number, number]) => set.add(k[0], 0, k[1], k[2], k[3]);
    const key = (i: number): [number, number, number, number] => [
      i % 97,
      (i % 1013) * 0.25,
      Math.floor(i / 97) + 0.5,
      100 + (i % 7),
    ];
    const expected = new Set<string>();
    for (let i = 0; i < 120_000; i++) {
      const k = key(i);
      expect(add(k)).toBe(!expected.has(k.join('|')));
      expected.add(k.join('|'));
    }
    expect(set.size).toBe(expected.size);
    for (let i = 0; i < 120_000; i += 7) expect(add(key(i))).toBe(false);
    expect(set.size).toBe(expected.size);
  });

  // A search's candidates: watts from the option, level and GPU count (a different number at each count, as
  // loop.ts wattsTellCounts requires), cost from those and the hours (NaN where the hours make it so).
  const tupleOf = (hl: number, count: number, hours: number): [number, number, number] => {
    const watts = 300 * count + 7 * hl + 50;
    return [hours === 4 ? NaN : (hours * watts) / 1000 + count, hours, watts];
  };

  it('by (option × level, GPU count, hours) answers as the whole tuple does, through growth', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 40 }),
            fc.integer({ min: 1, max: 8 }),
            fc.constantFrom(0, -0, 1.5, 2, 1e-9, 3.25, 4),
          ),
          { maxLength: 3000 },
        ),
        (keys) => {
          const whole = new DistinctPlans();
          const counted = new CountedPlans(8);
          for (const [hl, count, hours] of keys) {
            const [cost, h, watts] = tupleOf(hl, count, hours);
            expect(counted.add(hl, count, cost, h, watts)).toBe(
              whole.add(hl, count, cost, h, watts),
            );
          }
          expect(counted.size).toBe(whole.size);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('by (option × level, GPU count, hours) keeps every plan past 100,000 entries', () => {
    const whole = new DistinctPlans();
    const counted = new CountedPlans(64);
    for (let i = 0; i < 150_000; i++) {
      const [hl, count, hours] = [i % 89, 1 + (i % 64), Math.floor(i / 3) * 0.125];
      const [cost, h, watts] = tupleOf(hl, count, hours);
      expect(counted.add(hl, count, cost, h, watts)).toBe(whole.add(hl, count, cost, h, watts));
    }
    expect(counted.size).toBe(whole.size);
    expect(counted.size).toBeGreaterThan(100_000);
  });
});
