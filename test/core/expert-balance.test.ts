// Under expert parallelism a decode step's MoE layer waits for the rank whose tokens routed to the most distinct
// local experts (time/expert-balance.ts): the expected maximum of the ranks' binomial counts.
import { describe, expect, it } from 'vitest';
import { busiestRankFactor, expectedMaxBinomial } from '../../src/core/time/expert-balance.js';
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
