// One plan count: the distinct plans the feasible configurations make do not depend on --top, and ranked
// without a limit the plans are exactly that many; the set behind the count is exact.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DistinctPlans } from '../../src/core/plan/distinct.js';
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
          for (const k of keys) set.add(...k);
          const expected = new Set(keys.map(([a, b, c, d]) => `${a}|${b + 0}|${c}|${d}`));
          expect(set.size).toBe(expected.size);
          for (const k of keys) expect(set.add(...k)).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('keeps every plan through the table growing past 100,000 entries', () => {
    const set = new DistinctPlans();
    const key = (i: number): [number, number, number, number] => [
      i % 97,
      (i % 1013) * 0.25,
      Math.floor(i / 97) + 0.5,
      100 + (i % 7),
    ];
    const expected = new Set<string>();
    for (let i = 0; i < 120_000; i++) {
      const k = key(i);
      expect(set.add(...k)).toBe(!expected.has(k.join('|')));
      expected.add(k.join('|'));
    }
    expect(set.size).toBe(expected.size);
    for (let i = 0; i < 120_000; i += 7) expect(set.add(...key(i))).toBe(false);
    expect(set.size).toBe(expected.size);
  });
});
