/**
 * A sliding-window layer's prefill attention where the engine's kernel skips the key tiles left of the window
 * (FrameworkProfile.prefillWindowSkip: vLLM's FlashAttention and Triton backends on 8.x and 9.x): query i attends
 * min(i, w) keys, so such a layer's prefill attention grows with the prompt times the window, not the prompt squared.
 * gpt-oss alternates full layers with 128-token sliding ones; Gemma 3 interleaves 1,024-token local layers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts } from '../../src/core/time/index.js';
import { prefillAttentionFlops } from '../../src/core/time/prefill-attention.js';
import type { ModelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

function flopsOf(model: string, gpu: string, framework: string, tokens: number, seqs = 1): number {
  const f: RawFlags = { model, gpu, framework, method: 'inference', batch: 1, seq: tokens };
  const o = optionsFromFlags(f);
  const r = gpuRates(findGpu(gpu), timeOptionsFromFlags(f, o));
  return prefillAttentionFlops(modelFacts(resolveModel(model)), o, r, tokens, seqs);
}

/** Every layer attending its whole causal prefix: tokens^2 / 2 pairs at 4 x head width FLOPs a pair. */
const causalFlops = (m: ModelFacts, tokens: number, seqs = 1): number =>
  2 * m.attnLayers * tokens * tokens * m.attnWidth * seqs;

const GPT_OSS = modelFacts(resolveModel('gpt-oss-20b'));
/** gpt-oss-20b's 128-token sliding-window layers. */
const windowed = GPT_OSS.arch.groups
  .filter((g) => g.name === 'decoder' && g.slidingWindow !== null)
  .reduce((n, g) => n + g.count, 0);

describe("vLLM's prefill attention of sliding-window layers", () => {
  it('gpt-oss-20b has windowed layers of 128 tokens beside full ones', () => {
    expect(windowed).toBeGreaterThan(0);
    expect(windowed).toBeLessThan(GPT_OSS.attnLayers);
    for (const g of GPT_OSS.arch.groups)
      if (g.name === 'decoder' && g.slidingWindow !== null) expect(g.slidingWindow).toBe(128);
  });

  it("on an H100 (FA3) a 32K prompt's windowed layers attend 128 keys a query: (T - 128)^2 / 2 pairs fewer a layer", () => {
    const T = 32768;
    const expected = causalFlops(GPT_OSS, T) - 2 * windowed * (T - 128) ** 2 * GPT_OSS.attnWidth;
    expect(flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', T)).toBeCloseTo(expected, -6);
    // Half the layers nearly free: about half the causal figure.
    const share = flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', T) / causalFlops(GPT_OSS, T);
    expect(share).toBeGreaterThan(1 - windowed / GPT_OSS.attnLayers);
    expect(share).toBeLessThan(1 - windowed / GPT_OSS.attnLayers + 0.02);
  });

  it('a prompt within the window is unchanged', () => {
    expect(flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', 128, 3)).toBe(causalFlops(GPT_OSS, 128, 3));
  });

  it("gpt-oss's sinks on an A100 take the Triton backend, which prunes the tiles outside the window too", () => {
    expect(flopsOf('gpt-oss-20b', 'a100-80gb-sxm', 'vllm', 8192)).toBe(
      flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', 8192),
    );
    expect(flopsOf('gpt-oss-20b', 'a100-80gb-sxm', 'vllm', 8192)).toBeLessThan(
      causalFlops(GPT_OSS, 8192),
    );
  });

  it("Gemma 3's local layers on an A100 (FlashAttention 2) skip the tiles left of their window", () => {
    const g3 = modelFacts(resolveModel('gemma-3-4b-it'));
    expect(flopsOf('gemma-3-4b-it', 'a100-80gb-sxm', 'vllm', 8192)).toBeLessThan(
      0.5 * causalFlops(g3, 8192),
    );
  });

  it("an engine without the field (HF generate's SDPA masks), a B200 and an MI300X keep the causal figure", () => {
    expect(flopsOf('gpt-oss-20b', 'h100-sxm', 'hf', 8192)).toBe(causalFlops(GPT_OSS, 8192));
    expect(flopsOf('gpt-oss-20b', 'b200', 'vllm', 8192)).toBe(causalFlops(GPT_OSS, 8192));
    expect(flopsOf('gpt-oss-20b', 'mi300x', 'vllm', 8192)).toBe(causalFlops(GPT_OSS, 8192));
  });

  it('never more than the causal figure, never less than its full layers, and growing with the prompt', () => {
    const full = 1 - windowed / GPT_OSS.attnLayers;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 131072 }),
        fc.integer({ min: 1, max: 64 }),
        (T, seqs) => {
          const f = flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', T, seqs);
          const c = causalFlops(GPT_OSS, T, seqs);
          expect(f).toBeLessThanOrEqual(c * (1 + 1e-12));
          expect(f).toBeGreaterThanOrEqual(c * full * (1 - 1e-12));
          expect(flopsOf('gpt-oss-20b', 'h100-sxm', 'vllm', T + 1, seqs)).toBeGreaterThan(f);
        },
      ),
      { numRuns: 60 },
    );
  });
});
