/**
 * With an fp8 KV cache on compute capability 10.0 vLLM quantizes the query to FP8 and prefills through TRT-LLM's
 * FMHA, whose rate (FrameworkProfile.fp8KvPrefillAttention) is below the GEMM rate the time model gives a prefill's
 * attention elsewhere: a long prompt's prefill takes longer there with an fp8 cache than with the model's dtype; on
 * Hopper and on compute capability 10.3 the cache's dtype does not move the prefill.
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

// FP8 weights: the prefill's GEMMs, and its attention where no engine kernel says otherwise, at the 8-bit rate.
const longPrompt: RawFlags = { framework: 'vllm', weights: 'fp8', seq: 32768 };
const fp8: RawFlags = { ...longPrompt, 'kv-cache-dtype': 'fp8' };

describe("vLLM's fp8-KV prefill attention on SM100", () => {
  it('a 32K prompt prefills slower on a B200 with an fp8 cache than with the 16-bit one', () => {
    expect(prefillSeconds('b200', fp8)).toBeGreaterThan(prefillSeconds('b200', longPrompt) * 1.2);
  });

  it('a short prompt, whose attention is a small share, moves less than a long one', () => {
    const short = { ...longPrompt, seq: 1024 };
    const shortRatio =
      prefillSeconds('b200', { ...short, 'kv-cache-dtype': 'fp8' }) / prefillSeconds('b200', short);
    const longRatio = prefillSeconds('b200', fp8) / prefillSeconds('b200', longPrompt);
    expect(shortRatio).toBeLessThan(longRatio);
  });

  it("an H200 (no TRT-LLM attention in vLLM's FlashInfer backend) keeps the GEMM rate", () => {
    expect(prefillSeconds('h200-sxm', fp8)).toBe(prefillSeconds('h200-sxm', longPrompt));
  });

  it('a B300 (compute capability 10.3: no TRT-LLM attention in that build) keeps the GEMM rate', () => {
    expect(prefillSeconds('b300', fp8)).toBe(prefillSeconds('b300', longPrompt));
  });
});
