// llama.cpp's quantized KV cache (-ctk/-ctv q8_0) is searched: it is an integer type, so it runs on GPUs without
// FP8 (an RTX 3090), and on a 24 GB card it keeps every layer of Qwen3-30B-A3B Q4_K_M on the GPU at 4 × 16k
// tokens where the f16 cache pushes layers or experts to the host.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { minKvCapability, searchesFp8Kv } from '../../src/core/engines/kernels.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

const scenario = scenarioSchema.parse({
  name: 'home server',
  model: 'qwen3-30b-a3b',
  job: { kind: 'inference', context: 16384, promptTokens: 4096, concurrency: 4 },
  hardware: { owned: [{ gpu: 'rtx-3090', count: 1 }], counts: { min: 1, max: 1 }, hostRamGiB: 64 },
  search: { engines: ['llama.cpp'], weights: ['q4_k_m'] },
  power: { powerLimits: [1] },
  rank: 'time',
});

describe('llama.cpp q8_0 KV cache', () => {
  it('is searched, with no least compute capability', () => {
    expect(searchesFp8Kv('llama.cpp')).toBe(true);
    expect(minKvCapability('llama.cpp', 'fp8')).toBe(0);
  });
  it('puts every layer on a 24 GB Ampere card and ranks first, ahead of the f16 cache with weights offloaded', () => {
    const plans = plan({ ...planInputOf('home.yaml', scenario), top: 20 }).plans;
    const best = plans[0]!;
    expect(best.choices.engine).toBe('llama.cpp');
    expect(best.options.kvCacheDtype).toBe('fp8');
    expect(best.options.gpuLayers).toBeUndefined();
    // The f16 cache holds part of the weights on the host: whole layers (-ngl) or the first layers' experts
    // (--n-cpu-moe, which ranks first among them).
    const f16 = plans.find((p) => p.options.kvCacheDtype !== 'fp8')!;
    expect(f16.options.cpuMoeLayers).toBeGreaterThan(0);
    expect(
      plans.find((p) => p.options.kvCacheDtype !== 'fp8' && p.options.gpuLayers),
    ).toBeDefined();
    // Against the f16 cache's fewest host-held expert layers that fit (--n-cpu-moe 4): 0.60 of its hours.
    expect(best.time.hours).toBeLessThan(f16.time.hours * 0.62);
  });
});
