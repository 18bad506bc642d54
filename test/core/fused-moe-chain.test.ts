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

  it("times vLLM's Triton experts on an AMD Instinct GPU at the HIP backend's depth and CDNA's HBM round trip", () => {
    const m = modelFacts(resolveModel('qwen3-235b-a22b'));
    const perLayer = chain('qwen3-235b-a22b', 'mi300x', 1, 8, 'vllm') / m.moeLayers;
    // w13: 64 steps of one 0.5 µs round trip each (num_stages 2: one tile in flight), less 25 MB at the MI300X's
    // modelled rate (5.3 TB/s x 0.81: 5.9 µs); w2's 3 steps are under their bytes.
    expect(perLayer).toBeCloseTo(64 * 0.5e-6 - 25.2e6 / (5300e9 * 0.81), 6);
    // Deeper than the B200's chain, whose 3 stages keep two tiles in flight.
    expect(perLayer).toBeGreaterThan(chain('qwen3-235b-a22b', 'b200', 1, 8, 'vllm') / m.moeLayers);
    expect(chain('qwen3-235b-a22b', 'mi355x', 1, 8, 'vllm')).toBeGreaterThan(0);
    // The shape the call figure was timed at (32 steps of w13 against 50 MB) is nearer its bytes: a fifth as much.
    const small =
      chain('qwen3-30b-a3b', 'mi300x', 1, 1, 'vllm') /
      modelFacts(resolveModel('qwen3-30b-a3b')).moeLayers;
    expect(small).toBeLessThan(perLayer / 4);
  });

  it('leaves AMD cards outside the Instinct (gfx9) line untimed', () => {
    expect(chain('qwen3-235b-a22b', 'rx-7900-xtx', 1, 8, 'vllm')).toBe(0);
  });
});
