// Shared helpers for the solver tests: fixtures that carry their own answers, and a seeded PRNG.
import { readdirSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseMipModel, type MipModel } from '../../src/solve/index.js';

const FixtureSchema = z.strictObject({
  description: z.string().min(1),
  model: z.unknown(),
  expects: z.strictObject({
    status: z.enum(['optimal', 'feasible', 'infeasible', 'unbounded', 'timeout', 'error']),
    objective: z.number().optional(),
    values: z.record(z.string(), z.number()).optional(),
  }),
});

export interface Fixture extends Omit<z.infer<typeof FixtureSchema>, 'model'> {
  file: string;
  model: MipModel;
}

const dir = new URL('../fixtures/lp/', import.meta.url);

/** Every test/fixtures/lp/*.json, validated (fixture shape and model) so a broken fixture fails loudly. */
export function loadFixtures(): Fixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = FixtureSchema.parse(JSON.parse(readFileSync(new URL(file, dir), 'utf8')));
      return { ...raw, file, model: parseMipModel(raw.model) };
    });
}

/** mulberry32: a tiny deterministic PRNG (tests must not use Math.random). */
export function prng(seed: number): {
  next: () => number;
  int: (lo: number, hi: number) => number;
} {
  let a = seed | 0;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/** 0/1 multi-dimensional knapsack: n binaries × m rows, weights and values 1..100, capacity = frac × row sum. */
export function knapsack(seed: number, n = 50, m = 20, frac = 0.1): MipModel {
  const r = prng(seed);
  const w = Array.from({ length: m }, () => Array.from({ length: n }, () => r.int(1, 100)));
  const value = Array.from({ length: n }, () => r.int(1, 100));
  const item = (j: number) => `item${String(j).padStart(2, '0')}`;
  return {
    sense: 'max',
    objective: Object.fromEntries(value.map((v, j) => [item(j), v])),
    constraints: w.map((row, i) => ({
      name: `dim${i}`,
      terms: Object.fromEntries(row.map((a, j) => [item(j), a])),
      op: '<=' as const,
      rhs: Math.floor(row.reduce((s, a) => s + a, 0) * frac),
    })),
    integers: [],
    binaries: value.map((_, j) => item(j)),
  };
}

/** Small covering MIP (buy GPU counts): min Σ cost·x s.t. Σ a·x ≥ b per row, general integers. */
export function cover(seed: number, n = 6, m = 4): MipModel {
  const r = prng(seed);
  const v = (j: number) => `gpu${j}`;
  const objective = Object.fromEntries(Array.from({ length: n }, (_, j) => [v(j), r.int(5, 60)]));
  const constraints = Array.from({ length: m }, (_, i) => {
    const terms: Record<string, number> = {};
    for (let j = 0; j < n; j++) if (r.next() < 0.6) terms[v(j)] = r.int(1, 12);
    if (Object.keys(terms).length === 0) terms[v(i % n)] = r.int(1, 12);
    return { name: `need${i}`, terms, op: '>=' as const, rhs: r.int(10, 60) };
  });
  return { sense: 'min', objective, constraints, integers: Object.keys(objective) };
}
