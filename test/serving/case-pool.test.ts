// A serving row's pool as its run sized it (commands/validate-throughput.ts casePool): the pool its engine printed,
// the share of memory it set, and vLLM's start-up sampler at the row's running cap.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { casePool } from '../../src/commands/validate-throughput.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const MOE = 'calibration/configs/Qwen__Qwen3-Coder-30B-A3B-Instruct-FP8.json';
const setup = (framework: string) => {
  const f = {
    method: 'inference',
    framework,
    weights: 'fp8',
    batch: 1000,
    seq: 498,
    'prompt-tokens': 302,
  };
  return {
    o: withEngineDefaults(optionsFromFlags(f), f),
    arch: resolveModel(MOE),
    gpu: findGpu('l40s'),
  };
};

describe("a serving row's pool as its run sized it", () => {
  const v = setup('vllm');
  const s = setup('sglang');

  it('the pool the engine printed: the sequences it holds at the mean context (400)', () => {
    // vLLM runs what the pool holds at the mean context; SGLang fewer, less its output reserve
    // (time/admission-reserve.ts: 115, test/core/admission-reserve.test.ts).
    expect(casePool({ kv_pool_tokens: 48740 }, v.arch, v.o, v.gpu).pool).toBe(121);
    expect(casePool({ kv_pool_tokens: 48740 }, s.arch, s.o, s.gpu).pool).toBe(115);
    // Never more than the requests sent.
    expect(casePool({ kv_pool_tokens: 10_000_000 }, s.arch, s.o, s.gpu).pool).toBe(1000);
    // The tokens themselves, for a burst run by actual lengths (time/length-spread.ts).
    expect(casePool({ kv_pool_tokens: 48740 }, s.arch, s.o, s.gpu).poolTokens).toBe(48740);
  });

  it('the pool in tokens: the sequences it holds at the mean context (400), at most the running cap', () => {
    for (const c of [{}, { max_num_seqs: 256 }, { max_num_seqs: 256, pool_fraction: 0.8 }]) {
      const { pool, poolTokens } = casePool(c, v.arch, v.o, v.gpu);
      expect(pool).toBe(Math.min(Math.floor(poolTokens! / 400), c.max_num_seqs ?? 1000));
    }
  });

  it("vLLM's start-up sampler at the running cap leaves a larger pool than one at --batch", () => {
    const atBatch = casePool({}, v.arch, v.o, v.gpu).pool!;
    const atCap = casePool({ max_num_seqs: 256 }, v.arch, v.o, v.gpu).pool!;
    expect(atBatch).toBe(170); // fused_experts' profiled workspaces included (engines/vllm/fused-moe-workspace.ts)
    expect(atCap).toBeLessThanOrEqual(256);
    expect(atCap).toBeGreaterThan(atBatch);
  });

  it('a running cap above --batch samples its own rows: a smaller pool than one at --batch', () => {
    const atBatch = casePool({}, v.arch, v.o, v.gpu).pool!;
    expect(casePool({ max_num_seqs: 4096 }, v.arch, v.o, v.gpu).pool!).toBeLessThan(atBatch);
  });

  it("a share of memory below the engine's default never holds more; the default's share holds the model's pool", () => {
    const byDefault = casePool({ max_num_seqs: 256 }, v.arch, v.o, v.gpu).pool!;
    expect(casePool({ max_num_seqs: 256, pool_fraction: 0.9 }, v.arch, v.o, v.gpu).pool).toBe(
      byDefault,
    );
    expect(casePool({ max_num_seqs: 256, pool_fraction: 0.8 }, v.arch, v.o, v.gpu).pool).toBe(139);
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 0.95, noNaN: true }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        fc.constantFrom('vllm', 'sglang'),
        (f, d, engine) => {
          const e = engine === 'vllm' ? v : s;
          const less = casePool({ pool_fraction: f }, e.arch, e.o, e.gpu).pool ?? 0;
          const more =
            casePool({ pool_fraction: Math.min(1, f + d) }, e.arch, e.o, e.gpu).pool ?? 0;
          expect(less).toBeLessThanOrEqual(more);
        },
      ),
      { numRuns: 30 },
    );
  });
});
