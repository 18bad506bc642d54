// A batch whose prompts the prefix cache holds prefills only the rest of each prompt: vLLM V1 turns the cache on by
// default (vllm/engine/arg_utils.py _set_default_args_v1 @v0.10.0) and benchmark_latency.py draws its prompts once,
// before the warm-up runs, so the timed runs find every full block cached (docs/time-model.md "AMD's rocm/vllm-dev
// latency tables: the latency script's prompts come from the prefix cache").
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { spreadBurst, type SpreadEngine } from '../../src/core/time/length-spread.js';
import { estimateTime, staticBatchSeconds } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const setup = (flags: Record<string, unknown>) => {
  const f = { method: 'inference', framework: 'vllm', gpu: 'h100-sxm', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return {
    arch: resolveModel('llama-3.1-8b'),
    o,
    g: findGpu('h100-sxm'),
    t: timeOptionsFromFlags(f, o),
  };
};
const batch = (flags: Record<string, unknown>) => {
  const { arch, o, g, t } = setup(flags);
  return staticBatchSeconds(arch, o, g, t);
};
const prefillPhase = (flags: Record<string, unknown>) => {
  const { arch, o, g, t } = setup(flags);
  return estimateTime(arch, o, g, t).phases.find((p) => p.phase === 'prefill')!.seconds;
};

describe('a static batch with prefix caching on', () => {
  const base = { 'prompt-tokens': 2048, batch: 32 };
  it('prefills only the uncached share of each prompt', () => {
    // One output token: the batch is its prefill. 2032 of 2048 tokens cached leaves 16 a prompt.
    const cold = batch({ ...base, seq: 2049 });
    const warm = batch({ ...base, seq: 2049, 'prefix-cache': 2032 / 2048 });
    expect(Math.abs(cold / prefillPhase({ ...base, seq: 2049 }) - 1)).toBeLessThan(1e-3);
    expect(warm).toBeLessThan(cold / 20);
    // The same prompts of 16 tokens each: what the cache leaves to prefill.
    const fresh = batch({ 'prompt-tokens': 16, batch: 32, seq: 17 });
    expect(Math.abs(warm / fresh - 1)).toBeLessThan(0.05);
  });
  it('leaves the decode steps as they are: the cached tokens are still read as context', () => {
    // 1024 more output tokens (each step's mean context grows alike with or without the cache).
    const cold = batch({ ...base, seq: 4096 }) - batch({ ...base, seq: 3072 });
    const pc = { 'prefix-cache': 2032 / 2048 };
    const warm = batch({ ...base, seq: 4096, ...pc }) - batch({ ...base, seq: 3072, ...pc });
    expect(Math.abs(warm / cold - 1)).toBeLessThan(1e-9);
  });
  it('without the option nothing changes', () => {
    expect(batch({ ...base, seq: 4096, 'prefix-cache': 0 })).toBe(batch({ ...base, seq: 4096 }));
  });
});

describe('a burst run step by step with prefix caching on', () => {
  const engine: SpreadEngine = {
    slots: 8,
    poolTokens: 1e6,
    budgetTokens: 8192,
    stepSeconds: () => 0.01,
    prefillSecondsPerToken: 1e-5,
  };
  const requests = Array.from({ length: 8 }, () => ({ prompt: 2048, output: 4 }));
  it('admits each request with only the uncached share of its prompt to prefill', () => {
    const cold = spreadBurst(requests, engine);
    const warm = spreadBurst(requests, { ...engine, cachedShare: 2032 / 2048 });
    expect(cold.prefilledTokens).toBe(8 * 2048);
    expect(warm.prefilledTokens).toBe(8 * 16);
    // 2 steps of 8192 tokens each prefill the cold burst; the warm one starts decoding in its first.
    expect(warm.steps).toBeLessThan(cold.steps);
    expect(warm.seconds).toBeLessThan(cold.seconds);
  });
  it('keeps at least one token of each prompt to prefill (the last is recomputed for its logits)', () => {
    const warm = spreadBurst(requests, { ...engine, cachedShare: 0.99999 });
    expect(warm.prefilledTokens).toBe(8);
  });
});
