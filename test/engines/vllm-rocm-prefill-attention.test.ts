/**
 * vLLM prefills a prompt's attention on ROCm through a Triton kernel over the paged cache
 * (FrameworkProfile.rocmPrefillAttention), below the GEMM rate the time model gives attention elsewhere: a long
 * prompt's prefill on an AMD GPU takes longer with the profile than without it, a short one barely moves, and
 * NVIDIA GPUs keep their rate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const MODEL = 'llama-3.1-8b';
const profile = FRAMEWORKS.vllm.rocmPrefillAttention;

function prefillSeconds(gpu: string, seq: number): number {
  const f: RawFlags = { model: MODEL, gpu, method: 'inference', batch: 1, framework: 'vllm', seq };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  return decodeStep(modelFacts(resolveModel(MODEL)), o, t, gpuRates(findGpu(gpu), t), true, seq)
    .prefillSeconds;
}

/** The prefill with the profile's ROCm attention rate, over the same prefill at the GEMM rate. */
function ratio(gpu: string, seq: number): number {
  const withKernel = prefillSeconds(gpu, seq);
  FRAMEWORKS.vllm.rocmPrefillAttention = undefined;
  const atGemmRate = prefillSeconds(gpu, seq);
  FRAMEWORKS.vllm.rocmPrefillAttention = profile;
  return withKernel / atGemmRate;
}

afterEach(() => {
  FRAMEWORKS.vllm.rocmPrefillAttention = profile;
});

describe("vLLM's prefill attention on ROCm", () => {
  it('the profile names a share of the 16-bit peak below the GEMMs', () => {
    expect(profile?.peakShare).toBeGreaterThan(0);
    expect(profile?.peakShare).toBeLessThan(0.55);
  });

  it('a 32K prompt prefills slower on an MI355X and an MI300X than at the GEMM rate', () => {
    expect(ratio('mi355x', 32768)).toBeGreaterThan(1.2);
    expect(ratio('mi300x', 32768)).toBeGreaterThan(1.2);
  });

  it('a 1K prompt, whose attention is a small share, moves less than a 32K one', () => {
    expect(ratio('mi355x', 1024)).toBeLessThan(ratio('mi355x', 32768));
  });

  it('an H100 keeps the GEMM rate', () => {
    expect(ratio('h100-sxm', 32768)).toBe(1);
  });
});
