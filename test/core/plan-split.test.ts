// A search split into parts over blocks of rows (core/plan/split.ts), each part searched apart as a worker
// thread would (a fresh input, its state passed through a structured clone), merges into the serial search's
// result: the same plans, variants, front, counts, nearest fixes and distinct plans.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plan, searchPart, type LoopPart, type PlanInput } from '../../src/core/plan/index.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { Scenario } from '../../src/schema/scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');

/** plan(input) with its search in `parts` parts; the other parts searched as a worker would (or failed). */
function splitPlan(file: string, s: Scenario, input: PlanInput, parts: number, fail = false) {
  const asked: number[] = [];
  const result = plan({
    ...input,
    split: {
      parts: (size) => {
        asked.push(size);
        return parts;
      },
      collect: () =>
        fail
          ? null
          : Array.from(
              { length: parts - 1 },
              (_, i) =>
                structuredClone(
                  searchPart(planInputOf(file, s, { top: input.top }), i + 1, parts),
                ) as LoopPart,
            ),
    },
  });
  return { result, asked };
}

describe('a split search', () => {
  const cases: [string, (s: Scenario) => Scenario][] = [
    ['default.yaml', (s) => s],
    ['70b-qlora-rent-cheapest.yaml', (s) => s],
    ['4x-rtx3090-one-circuit.yaml', (s) => s],
    ['serve-8b-64-users-24gb.yaml', (s) => s],
    ['dpo-llama-3.1-8b.yaml', (s) => ({ ...s, rank: 'power' })],
    // Nothing fits: the nearest fixes come from the parts' nearest misses.
    ['default.yaml', (s) => ({ ...s, limits: { ...s.limits, budgetUsd: 0.01 } })],
  ];
  for (const [name, edit] of cases)
    it(`${name} (${cases.filter((c) => c[0] === name).indexOf(cases.find((c) => c[1] === edit)!)}): two and three parts give the serial result`, async () => {
      await loadLaunchers();
      const file = join(DIR, name);
      const s = edit(loadScenario(file));
      const input = planInputOf(file, s, { top: 12 });
      const serial = plan(input);
      for (const parts of [2, 3]) {
        const { result, asked } = splitPlan(file, s, input, parts);
        expect(asked).toHaveLength(1);
        expect(asked[0]).toBeGreaterThan(0);
        expect(result).toEqual(serial);
      }
      // Parts that failed elsewhere are searched in the process, with the same result.
      expect(splitPlan(file, s, input, 2, true).result).toEqual(serial);
    });

  it('is not split where a slowdown limit needs the fastest hours first', async () => {
    await loadLaunchers();
    const file = join(DIR, 'default.yaml');
    const s = loadScenario(file);
    const input = planInputOf(file, { ...s, limits: { ...s.limits, maxSlowdown: 2 } }, {});
    expect(splitPlan(file, s, input, 2).asked).toEqual([]);
  });
});
