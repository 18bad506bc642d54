/**
 * torch._grouped_mm's per-group tile padding (time/grouped-mm-tiles.ts) against a kernel benchmark from outside the
 * calibration set: pytorch/ao#2490 ("[moe training] add benchmarking script for grouped mm",
 * https://github.com/pytorch/ao/pull/2490, benchmarks/float8/bench_grouped_mm.py on an H100) prints, for Llama 4
 * Scout's routed experts (M 8192 rows over E 16 experts), the offsets of its uneven groups and the bf16
 * torch._grouped_mm time (`torch.bfloat16 time_sec`). Priced as the model prices the experts (the card's dense GEMM rate
 * times `shapeFactor` of the rows and N) the two calls run 11-16% faster than measured; with each group's rows padded to
 * the 128-row tile GroupMM.cu dispatches at that shape they come within 6%.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gpuRates } from '../../src/core/time/index.js';
import { expectedPaddedRows } from '../../src/core/time/expert-balance.js';
import {
  groupedMmTiles,
  groupedTileShares,
  groupedTileSharesOf,
} from '../../src/core/time/grouped-mm-tiles.js';
import { shapeFactor } from '../../src/core/time/shape.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

/** One bf16 line of pytorch/ao#2490's H100 output: M, K, N, the printed `offs` (group ends), time_sec. */
interface AoGroupedCase {
  m: number;
  k: number;
  n: number;
  ends: readonly number[];
  seconds: number;
}

// pytorch/ao#2490's "Llama4_17bx16e" block (H100): "M, K, N, E: 8192 5120 8192 16" and "8192 8192 5120 16".
const AO_H100_GROUPED_BF16: readonly AoGroupedCase[] = [
  {
    m: 8192,
    k: 5120,
    n: 8192,
    ends: [
      272, 832, 1744, 2288, 2768, 3056, 4160, 4352, 4544, 4800, 5056, 5360, 6432, 7760, 7872, 8192,
    ],
    seconds: 1.31e-3,
  },
  {
    m: 8192,
    k: 8192,
    n: 5120,
    ends: [
      464, 1008, 1664, 2608, 2912, 3296, 3584, 3968, 4960, 5024, 5232, 5952, 7440, 7760, 7984, 8192,
    ],
    seconds: 1.26e-3,
  },
];

const h100 = gpuRates(findGpu('h100-sxm'), defaultTimeOptions(1));

/** The model's seconds for one case; `padded` adds each group's tile padding at the tile GroupMM.cu picks. */
function modelledSeconds(c: AoGroupedCase, padded: boolean): number {
  const groups = c.ends.map((e, i) => e - (i === 0 ? 0 : c.ends[i - 1]!));
  const tile = groupedMmTiles(h100.cc, c.m / groups.length, c.n).m;
  const rows = padded ? groups.reduce((s, g) => s + Math.ceil(g / tile) * tile, 0) : c.m;
  const share = c.m / rows;
  return (2 * c.m * c.n * c.k) / (h100.gemm16 * shapeFactor(c.m, c.n) * share);
}

describe("torch._grouped_mm's per-group tile padding", () => {
  it('takes the 128 x 256 tile on 9.x at hundreds of rows a group, the 64-row one where rows are few or on 10.x', () => {
    expect(groupedMmTiles(9.0, 512, 8192)).toEqual({ m: 128, k: 64 });
    expect(groupedMmTiles(9.0, 100, 8192)).toEqual({ m: 64, k: 64 });
    expect(groupedMmTiles(9.0, 512, 128)).toEqual({ m: 64, k: 128 });
    expect(groupedMmTiles(10.0, 4096, 8192)).toEqual({ m: 64, k: 128 });
  });

  it("reproduces pytorch/ao#2490's H100 grouped GEMMs within 6% with the padding, and misses by over 10% without", () => {
    for (const c of AO_H100_GROUPED_BF16) {
      const withPadding = modelledSeconds(c, true) / c.seconds;
      expect(withPadding).toBeGreaterThan(0.94);
      expect(withPadding).toBeLessThan(1.06);
      expect(modelledSeconds(c, false) / c.seconds).toBeLessThan(0.9);
    }
  });

  it("prices Qwen3-30B-A3B's 256 rows an expert (4,096 tokens, top 8 of 128) on an H100 at about 0.8", () => {
    const s = groupedTileShares(9.0, 4096, 8 / 128, 768);
    expect(s.rows).toBeGreaterThan(0.78);
    expect(s.rows).toBeLessThan(0.83);
    // At 16,384 tokens (1,024 rows an expert) the last tile's share is small.
    expect(groupedTileShares(9.0, 16384, 8 / 128, 768).rows).toBeGreaterThan(0.93);
  });

  it('the expected padded rows lie between the mean and the mean plus a tile (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200000 }),
        fc.double({ min: 1e-4, max: 1, noNaN: true }),
        fc.constantFrom(64, 128),
        (n, p, tile) => {
          const padded = expectedPaddedRows(n, p, tile);
          const mean = n * p;
          expect(padded).toBeGreaterThanOrEqual(mean * (1 - 1e-6) - 1e-9);
          expect(padded).toBeLessThanOrEqual(mean + tile + 1e-6);
        },
      ),
    );
  });

  it('pads half a tile less one row on average once the load spreads over many tiles', () => {
    // sd = sqrt(8950 x 1/16 x 15/16) = 22.9 rows against a 16-row tile: X mod 16 is near uniform, so the mean padding
    // is (16 - 1) / 2.
    expect(expectedPaddedRows(8950, 1 / 16, 16) - 8950 / 16).toBeCloseTo(7.5, 2);
  });

  it('leaves the per-group fallback and calls that are not grouped at 1', () => {
    const g = {
      fwdCalls: 144,
      bwdCalls: 288,
      groups: 128,
      routeP: 8 / 128,
      epRanks: 1,
      width: 768,
    };
    expect(groupedTileSharesOf({ groupedMm: g, groupedMmBf16: true, tokens: 4096 }, 8.0)).toEqual({
      rows: 1,
      weightGrad: 1,
    });
    const none = { ...g, fwdCalls: 0 };
    expect(
      groupedTileSharesOf({ groupedMm: none, groupedMmBf16: true, tokens: 4096 }, 9.0),
    ).toEqual({ rows: 1, weightGrad: 1 });
    expect(
      groupedTileSharesOf({ groupedMm: g, groupedMmBf16: true, tokens: 4096 }, 9.0).rows,
    ).toBeLessThan(0.9);
  });
});
