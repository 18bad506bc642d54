// The hang case (ecosystem.md §4): jsLP's own `timeout` is only checked between B&B nodes, so a single
// simplex call can run on. knapsack(5) (50 binaries × 20 rows, capacity 10 % of each row) ran > 30 s
// in jsLP 1.0.3 with `timeout: 500` set; HiGHS solves it (objective 359) in about 0.5 s.
import { afterAll, expect, it } from 'vitest';
import { checkSolution, closeJslpWorkers, solveMip } from '../../src/solve/index.js';
import { knapsack, loadFixtures } from './helpers.js';

afterAll(closeJslpWorkers);

const hang = knapsack(5);

it('jslp alone reports timeout at its deadline instead of hanging', async () => {
  const t0 = performance.now();
  const r = await solveMip(hang, { backend: 'jslp', timeLimitMs: 500 });
  const wall = performance.now() - t0;
  expect(r.status).toBe('timeout');
  expect(r.values).toEqual({});
  expect(wall).toBeGreaterThanOrEqual(490);
  // The hang runs > 30 s; the deadline (a timer, not a loop) ends it far sooner even on a loaded machine.
  expect(wall).toBeLessThan(20_000);

  // the killed worker is replaced: the next solve works
  const purchase = loadFixtures().find((f) => f.file === 'gpu-purchase.json')!.model;
  const next = await solveMip(purchase, { backend: 'jslp' });
  expect(next.status).toBe('optimal');
  expect(next.objective).toBe(21600);
});

it('auto falls back to HiGHS and returns a verified answer in bounded time', async () => {
  const t0 = performance.now();
  const r = await solveMip(hang, { backend: 'auto', timeLimitMs: 5_000, jslpTimeLimitMs: 500 });
  const wall = performance.now() - t0;
  expect(wall).toBeLessThan(60_000);
  expect(r.backend).toBe('highs');
  expect(r.message).toMatch(/^jslp: timeout/);
  expect(['optimal', 'feasible']).toContain(r.status);
  if (r.status === 'optimal') expect(r.objective).toBe(359);
  expect(checkSolution(hang, r.values).problems).toEqual([]);
});
