/**
 * With an fp8 KV cache on compute capability 10.0 vLLM quantizes the query to FP8 and prefills through TRT-LLM's
 * FMHA, whose rate (FrameworkProfile.fp8KvPrefillAttention) is below the 8-bit GEMM rate the time model gives an
 * fp8 cache's prefill attention elsewhere (FlashAttention with the query quantized to FP8). With a 16-bit cache a
 * W8A8 checkpoint's prefill attention runs at the 16-bit rate, so on Hopper and on compute capability 10.3 an fp8
 * cache prefills a long prompt faster than a 16-bit one, and on a B200 by less than there.
 */
import { describe, expect, it } from 'vitest';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const MODEL = 'llama-3.1-8b';

function prefillSeconds(gpu: string, flags: RawFlags): number {
  const f: RawFlags = { model: MODEL, gpu, method: 'inference', batch: 1, ...flags };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  const prompt = Number(f.seq);
  return decodeStep(modelFacts(resolveModel(MODEL)), o, t, gpuRates(findGpu(gpu), t), true, prompt)
    .prefillSeconds;
}

// FP8 weights: the prefill's GEMMs at the 8-bit rate; its attention at the cache's (the query quantized with an fp8 cache).
const longPrompt: RawFlags = { framework: 'vllm', weights: 'fp8', seq: 32768 };

describe("vLLM's fp8-KV prefill attention on SM100", () => {
  // An fp8 cache's prefill over a 16-bit cache's, for a 32K prompt.
  const ratio = (gpu: string, flags: RawFlags = longPrompt) =>
    prefillSeconds(gpu, { ...flags, 'kv-cache-dtype': 'fp8' }) / prefillSeconds(gpu, flags);

  it("a 32K prompt's fp8 cache gains less on a B200 (TRT-LLM FMHA) than on a B300 or an H200 (the 8-bit rate)", () => {
    expect(ratio('b200')).toBeGreaterThan(ratio('b300') * 1.1);
    expect(ratio('b200')).toBeGreaterThan(ratio('h200-sxm') * 1.1);
  });

  it('a short prompt, whose attention is a small share, moves less than a long one', () => {
    const short = { ...longPrompt, seq: 1024 };
    for (const gpu of ['b200', 'h200-sxm'])
      expect(Math.abs(1 - ratio(gpu, short))).toBeLessThan(Math.abs(1 - ratio(gpu)));
  });

  it('on an H200 and a B300 an fp8 cache prefills the attention at the 8-bit rate, a 16-bit one at the 16-bit rate', () => {
    expect(ratio('h200-sxm')).toBeLessThan(0.9);
    expect(ratio('b300')).toBeLessThan(0.9);
  });

  it("16-bit weights: the cache's dtype does not move the prefill on an H200", () => {
    expect(ratio('h200-sxm', { ...longPrompt, weights: 'bf16' })).toBe(1);
  });
});
