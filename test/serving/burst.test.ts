// A burst of requests sent at once (time/burst.ts): prefills queue in chunks of the engine's batched-token budget,
// then the batch decodes; the steady-state TTFT/TPOT stay as they were.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const time = (flags: Record<string, unknown>, model = 'llama-3.1-8b', gpu = 'h100-sxm') => {
  const f = { method: 'inference', framework: 'vllm', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return buildEstimate(resolveModel(model), o, findGpu(gpu), defaultTimeOptions(o.gpus)).time!;
};

describe('a burst of requests sent at once', () => {
  const base = { batch: 64, seq: 1536, 'prompt-tokens': 1024 };
  const t = time(base);
  const b = t.burst!;

  it('queues the prompts in chunks of the engine budget', () => {
    expect(VLLM_MEMORY.server?.sizing(80 * 2 ** 30, 1, 1).chunkTokens).toBe(8192);
    expect(b.requests).toBe(64);
    expect(b.chunkTokens).toBe(8192);
    expect(b.prefillSteps).toBe(Math.ceil((64 * 1024) / 8192));
    // Eight prompts end in each chunk: the mean request waits for chunk 4.5 of 8 (run step by step, the prompts
    // already prefilled decode a token each in the later steps, which take a little of the budget and the time).
    expect(b.ttftMeanSeconds / b.ttftMaxSeconds).toBeCloseTo(4.5 / 8, 1);
    expect(b.ttftMeanSeconds / b.ttftMaxSeconds).toBeGreaterThanOrEqual(4.5 / 8);
  });

  it('is slower to the first token and over the run than the steady state', () => {
    expect(b.ttftMeanSeconds).toBeGreaterThan(t.ttftSeconds!);
    expect(b.outputTokensPerSecond).toBeLessThan(t.decodeTokensPerSecond!);
    expect(b.outputTokensPerSecond).toBeGreaterThan(0.5 * t.decodeTokensPerSecond!);
  });

  it("vLLM's chunk is its API server's default for the GPU: 8192 at 70 GiB or more, 2048 on an A100 or a smaller card", () => {
    const sizing = VLLM_MEMORY.server!.sizing;
    const gib80 = 80 * 2 ** 30;
    expect(sizing(gib80, 1, 1, 'NVIDIA H100 80GB HBM3').chunkTokens).toBe(8192);
    expect(sizing(gib80, 1, 1, 'NVIDIA A100-SXM4-80GB').chunkTokens).toBe(2048);
    expect(sizing(24 * 2 ** 30, 1, 1, 'NVIDIA GeForce RTX 4090').chunkTokens).toBe(2048);
    expect(sizing(undefined, 1, 1).chunkTokens).toBe(8192);
    expect(time(base, 'llama-3.1-8b', 'a100-80gb-sxm').burst!.chunkTokens).toBe(2048);
    expect(time(base, 'llama-3.1-8b', 'h100-sxm').burst!.chunkTokens).toBe(8192);
  });

  it("vLLM's pool on an A100 is what a 2048-token profile leaves: larger than an 8192-token one on the same memory", () => {
    const f = {
      method: 'inference',
      framework: 'vllm',
      batch: 64,
      seq: 4096,
      'prompt-tokens': 2048,
    };
    const o = withEngineDefaults(optionsFromFlags(f), f);
    const pool = (gpuDeviceName: string) =>
      estimateMemory(resolveModel('llama-3.1-8b'), o, {
        gpuCapacityBytes: 80 * 2 ** 30,
        gpuDeviceName,
      }).kvPool!.poolBytes;
    expect(pool('NVIDIA A100-SXM4-80GB')).toBeGreaterThan(pool('NVIDIA H100 80GB HBM3'));
  });

  it("SGLang's chunk follows its chunked_prefill_size for the GPU's memory (2,048 under 35 GiB)", () => {
    const f = {
      method: 'inference',
      framework: 'sglang',
      batch: 64,
      seq: 1536,
      'prompt-tokens': 1024,
    };
    const o = withEngineDefaults(optionsFromFlags(f), f);
    const small = buildEstimate(
      resolveModel('llama-3.1-8b'),
      o,
      findGpu('rtx-4090'),
      defaultTimeOptions(1),
    ).time!;
    expect(small.burst!.chunkTokens).toBe(2048);
  });

  it('a burst that fits one chunk waits one prefill step, every request alike', () => {
    const small = time({ batch: 4, seq: 1536, 'prompt-tokens': 1024 }).burst!;
    expect(small.prefillSteps).toBe(1);
    expect(small.ttftMeanSeconds).toBe(small.ttftMaxSeconds);
  });

  it('the last request waits longer as more are sent at once', () => {
    const more = time({ ...base, batch: 256 }).burst!;
    expect(more.prefillSteps).toBe(32);
    expect(more.ttftMaxSeconds).toBeGreaterThan(3 * b.ttftMaxSeconds);
  });

  it("one more prompt past a chunk costs its own tokens' prefill, not a whole chunk's", () => {
    // 8 prompts of 1,024 fill one 8,192-token step; a ninth is one step of 1,024 tokens more.
    const full = time({ batch: 8, seq: 1536, 'prompt-tokens': 1024 }).burst!;
    const over = time({ batch: 9, seq: 1536, 'prompt-tokens': 1024 }).burst!;
    const one = time({ batch: 2, seq: 1536, 'prompt-tokens': 1024 }).burst!;
    expect(over.prefillSteps).toBe(2);
    expect(over.ttftMaxSeconds).toBeGreaterThan(full.ttftMaxSeconds);
    expect(over.ttftMaxSeconds).toBeLessThan(full.ttftMaxSeconds + one.ttftMaxSeconds);
    // A burst inside one step is priced at its prompts: 2 prompts well under the 8 a full step holds.
    expect(one.ttftMaxSeconds).toBeLessThan(0.5 * full.ttftMaxSeconds);
  });

  it('a prompt longer than the budget is one chunk of its own', () => {
    const long = time({ batch: 2, seq: 20000, 'prompt-tokens': 16384 }).burst!;
    expect(long.chunkTokens).toBe(16384);
    expect(long.prefillSteps).toBe(2);
  });

  it('only where it applies: batch > 1 on an engine that batches continuously', () => {
    expect(time({ batch: 1, seq: 1536, 'prompt-tokens': 1024 }).burst).toBeUndefined();
    expect(
      time({ ...base, framework: 'llama.cpp', weights: 'q4_k_m' }, 'llama-3.1-8b', 'rtx-4090')
        .burst,
    ).toBeUndefined();
    expect(time({ ...base, framework: 'sglang' }).burst!.chunkTokens).toBe(8192);
  });
});

describe('burst properties', () => {
  it('the last first token never comes earlier with more requests; the mean never after the last', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 300 }),
        fc.integer({ min: 16, max: 12000 }),
        fc.integer({ min: 1, max: 512 }),
        (n, prompt, out) => {
          const flags = { seq: prompt + out, 'prompt-tokens': prompt };
          const a = time({ ...flags, batch: n }).burst!;
          const b = time({ ...flags, batch: n + 1 }).burst!;
          expect(a.prefillSteps).toBe(Math.ceil((n * prompt) / Math.max(prompt, 8192)));
          expect(a.ttftMeanSeconds).toBeLessThanOrEqual(a.ttftMaxSeconds * (1 + 1e-9));
          expect(b.ttftMaxSeconds).toBeGreaterThanOrEqual(a.ttftMaxSeconds * (1 - 1e-9));
        },
      ),
      { numRuns: 40 },
    );
  });
});
