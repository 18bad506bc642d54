// At a few tokens a step each program of the Triton fused_moe kernel walks K in BLOCK_K steps with stages - 1 tile
// loads in flight (time/moe-call.ts fusedMoeChainSeconds): a GEMM takes the longer of that chain and its bytes. A
// wide-hidden, narrow-expert shard (Qwen3-235B-A22B over TP 8) is chain-bound at one token; the shape the engines'
// batch-1 call figure was timed at (Qwen3-30B-A3B on one GPU) is not, so that figure needs no share taken out.
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { fusedMoeChainSeconds } from '../../src/core/time/moe-call.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

/** One MoE layer's 16-bit routed-expert bytes on one GPU at `tokens` tokens (uniform routing) over `tp` GPUs. */
function layerBytes(id: string, tokens: number, tp: number): number {
  const m = modelFacts(resolveModel(id));
  const used = m.experts * (1 - Math.pow(1 - m.topK / m.experts, tokens));
  return (used * m.expertWeightsPerLayer * 2) / tp;
}

function chain(
  id: string,
  gpu: string,
  tokens: number,
  tp: number,
  framework: Framework = 'sglang',
): number {
  const m = modelFacts(resolveModel(id));
  const r = gpuRates(findGpu(gpu), defaultTimeOptions(tp));
  return fusedMoeChainSeconds(
    m,
    FRAMEWORKS[framework],
    r,
    layerBytes(id, tokens, tp),
    m.expertFfn / tp,
  );
}

describe('the fused_moe K-loop chain', () => {
  it("times Qwen3-235B-A22B's TP-8 shard at one token on a B200 beyond its bytes", () => {
    const m = modelFacts(resolveModel('qwen3-235b-a22b'));
    const perLayer = chain('qwen3-235b-a22b', 'b200', 1, 8) / m.moeLayers;
    // w13: 4096 / 64 = 64 steps at half the DRAM latency, against 25 MB of bytes at the modelled rate.
    expect(perLayer).toBeGreaterThan(5e-6);
    expect(perLayer).toBeLessThan(20e-6);
  });

  it('adds nothing at the shape the batch-1 call figure was timed at (E=128, N=768, hidden 2048)', () => {
    for (const gpu of ['b200', 'h100-sxm', 'a100-40gb-pcie'])
      expect(chain('qwen3-30b-a3b', gpu, 1, 1)).toBe(0);
  });

  it('fades once the routed experts are read in bulk', () => {
    const one = chain('qwen3-235b-a22b', 'b200', 1, 8);
    const four = chain('qwen3-235b-a22b', 'b200', 4, 8);
    expect(four).toBeLessThan(one);
    expect(chain('qwen3-235b-a22b', 'b200', 16, 8)).toBe(0);
  });

  it('needs the engine kernel tile and a DRAM latency for the card', () => {
    expect(chain('qwen3-235b-a22b', 'b200', 1, 8, 'llama.cpp')).toBe(0);
    expect(chain('qwen3-235b-a22b', 'mi300x', 1, 8)).toBe(0);
  });
});
