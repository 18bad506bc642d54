// Under expert parallelism a decode step's MoE layer waits for the rank whose tokens routed to the most distinct
// local experts (time/expert-balance.ts): the expected maximum of the ranks' binomial counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  busiestRankFactor,
  expectedMaxBinomial,
  expectedPaddedRows,
} from '../../src/core/time/expert-balance.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

describe('the busiest expert-parallel rank', () => {
  it('is the mean for one rank and the order statistic for several', () => {
    expect(expectedMaxBinomial(32, 0.25, 1)).toBeCloseTo(8, 9);
    // One expert a rank hit with probability 1/2: the larger of two draws is 1 unless both miss.
    expect(expectedMaxBinomial(1, 0.5, 2)).toBeCloseTo(0.75, 12);
    // Two experts a rank, p = 1/2, two ranks: P(max <= 0) = 1/16, P(max <= 1) = (3/4)^2.
    expect(expectedMaxBinomial(2, 0.5, 2)).toBeCloseTo(1 - 1 / 16 + 1 - 9 / 16, 12);
    expect([expectedMaxBinomial(8, 0, 4), expectedMaxBinomial(8, 1, 4)]).toEqual([0, 8]);
  });

  it('reads more than the mean rank at a few tokens, the mean as the tokens fill every expert, 1 without ep', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const o = (ep?: number) =>
      optionsFromFlags({
        method: 'inference',
        framework: 'vllm',
        gpus: 4,
        tp: 4,
        ...(ep ? { ep } : {}),
      });
    expect(busiestRankFactor(m, o(), 4)).toBe(1);
    const f = [1, 4, 64, 4096].map((b) => busiestRankFactor(m, o(4), b));
    expect(f[0]).toBeGreaterThan(f[1]!);
    expect(f[1]).toBeGreaterThan(f[2]!);
    expect(f[0]).toBeGreaterThan(1.5);
    expect(f[3]).toBeCloseTo(1, 6);
  });
});

/** E[ceil(X / tile) x tile] for X ~ Binomial(n, p), from the pmf built by products (small n only). */
function paddedByProducts(n: number, p: number, tile: number): number {
  let sum = 0;
  for (let j = 0; j <= n; j++) {
    let c = 1;
    for (let i = 0; i < j; i++) c = (c * (n - i)) / (i + 1);
    sum += c * p ** j * (1 - p) ** (n - j) * Math.ceil(j / tile) * tile;
  }
  return sum;
}

/** mulberry32 (https://gist.github.com/tommyettinger/46a874533244883189143505d203312c): a seeded uniform on [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One routed step simulated: each of `tokens` tokens picks `topK` distinct experts of `experts` (a partial
 * Fisher-Yates shuffle), and every expert's rows are rounded up to whole tiles; the padded rows of all experts.
 */
function simulatedPaddedRows(
  rand: () => number,
  s: { tokens: number; experts: number; topK: number; tile: number },
): number {
  const counts = new Array<number>(s.experts).fill(0);
  const ids = Array.from({ length: s.experts }, (_, i) => i);
  for (let t = 0; t < s.tokens; t++) {
    for (let i = 0; i < s.topK; i++) {
      const j = i + Math.floor(rand() * (s.experts - i));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
      counts[ids[i]!]! += 1;
    }
  }
  return counts.reduce((sum, c) => sum + Math.ceil(c / s.tile) * s.tile, 0);
}

describe("one expert's rows rounded up to whole tiles", () => {
  it('equals the binomial sum built by products', () => {
    expect(expectedPaddedRows(30, 0.25, 16)).toBeCloseTo(paddedByProducts(30, 0.25, 16), 9);
    expect(expectedPaddedRows(60, 1 / 16, 4)).toBeCloseTo(paddedByProducts(60, 1 / 16, 4), 9);
    expect(expectedPaddedRows(90, 0.9, 8)).toBeCloseTo(paddedByProducts(90, 0.9, 8), 9);
    // One tile holds any load below it: 1 - P(0) tiles of 64.
    expect(expectedPaddedRows(40, 0.1, 64)).toBeCloseTo(64 * (1 - 0.9 ** 40), 9);
    // A load that always fills whole tiles pads nothing; no tokens, no rows.
    expect(expectedPaddedRows(128, 1, 64)).toBe(128);
    expect(expectedPaddedRows(0, 0.5, 64)).toBe(0);
  });

  it('matches a seeded simulation of top-k routing summed over every expert (Qwen3-30B-A3B: top 8 of 128)', () => {
    const rand = mulberry32(20250607);
    for (const [tokens, tile] of [
      [64, 16],
      [256, 16],
      [2048, 128],
    ] as const) {
      const s = { tokens, experts: 128, topK: 8, tile };
      const draws = Array.from({ length: 400 }, () => simulatedPaddedRows(rand, s));
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
      const sd = Math.sqrt(draws.reduce((a, b) => a + (b - mean) ** 2, 0) / (draws.length - 1));
      const expected = 128 * expectedPaddedRows(tokens, 8 / 128, tile);
      // Within four standard errors of the simulated mean.
      expect(Math.abs(mean - expected)).toBeLessThan((4 * sd) / Math.sqrt(draws.length) + 1e-9);
    }
  });

  it('is at least the routed rows, at most a tile more, and grows with the tokens and the tile (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 300000, noNaN: true }),
        fc.double({ min: 1e-5, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 8 }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        (n, p, log2Tile, more) => {
          const tile = 2 ** log2Tile;
          const padded = expectedPaddedRows(n, p, tile);
          const tol = 1e-9 * Math.max(1, n * p);
          expect(padded).toBeGreaterThanOrEqual(n * p - tol);
          expect(padded).toBeLessThanOrEqual(n * p + tile + tol);
          expect(expectedPaddedRows(n + more, p, tile)).toBeGreaterThanOrEqual(padded - tol);
          // A tile that is a multiple of another covers whole smaller tiles: never fewer rows.
          expect(expectedPaddedRows(n, p, 2 * tile)).toBeGreaterThanOrEqual(padded - tol);
        },
      ),
      { numRuns: 300 },
    );
  });
});
