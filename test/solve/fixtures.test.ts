// Self-checking fixtures (STYLE.md example 8): each test/fixtures/lp/*.json carries its expected answer.
import { afterAll, describe, expect, it } from 'vitest';
import { checkSolution, closeJslpWorkers, solveMip } from '../../src/solve/index.js';
import { modelVariables } from '../../src/solve/model.js';
import { loadFixtures } from './helpers.js';

afterAll(closeJslpWorkers);

const fixtures = loadFixtures();

describe.each(['jslp', 'highs', 'auto'] as const)('fixtures with backend %s', (backend) => {
  it.each(fixtures.map((f) => [f.file, f] as const))('%s', async (_file, f) => {
    const r = await solveMip(f.model, { backend });
    expect(r.status, r.message).toBe(f.expects.status);
    if (f.expects.objective !== undefined) {
      expect(r.objective).not.toBeNull();
      expect(Math.abs(r.objective! - f.expects.objective)).toBeLessThanOrEqual(
        1e-6 * Math.max(1, Math.abs(f.expects.objective)),
      );
    }
    for (const [v, x] of Object.entries(f.expects.values ?? {})) {
      expect(Math.abs(r.values[v]! - x), v).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(x)));
    }
    if (r.status === 'optimal' || r.status === 'feasible') {
      // canonical: every variable, sorted keys, and the values satisfy the original rows
      expect(Object.keys(r.values)).toEqual(modelVariables(f.model));
      expect(checkSolution(f.model, r.values).problems).toEqual([]);
    } else {
      expect(r.values).toEqual({});
      expect(r.objective).toBeNull();
    }
    if (backend !== 'auto') expect(r.backend).toBe(backend);
  });
});

it('has the fixtures the adapter promises to cover', () => {
  const statuses = new Set(fixtures.map((f) => f.expects.status));
  expect([...statuses].sort()).toEqual(['infeasible', 'optimal', 'unbounded']);
  expect(fixtures.some((f) => f.model.constraints.some((c) => c.op === '='))).toBe(true);
});
