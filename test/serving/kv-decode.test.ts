// One KV layout for memory and decode time: the bytes a decode step reads from the cache are the bytes the
// memory model stores per sequence (the MLA latent, this rank's GQA heads, a sliding window, a recurrent
// state read and written), for every engine's layout and KV dtype.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { cacheShapeOf, decodeCacheBytes, kvElementBytes } from '../../src/core/memory/kv-layout.js';
import { LLAMA_CPP_UBATCH } from '../../src/core/engines/llama-cpp/memory.js';
import { gpuRates } from '../../src/core/time/index.js';
import { FLOAT_BYTES } from '../../src/core/model/dtypes.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { floatCompute } from '../../src/schema/estimate.js';

const est = (model: string, gpu: string, flags: Record<string, unknown>) => {
  const f = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = defaultTimeOptions(o.gpus);
  return { o, t, e: buildEstimate(resolveModel(model), o, findGpu(gpu), t) };
};
const phase = (e: ReturnType<typeof est>['e'], name: string): number =>
  e.time!.phases.find((p) => p.phase === name)?.seconds ?? NaN;

describe('MLA decode reads the latent the memory model stores', () => {
  it('decode-kv seconds x bandwidth = batch x context x cache.kvBytesPerToken (DeepSeek-V3, V2-Lite)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('deepseek-v3', 'deepseek-v2-lite'),
        fc.constantFrom('vllm', 'sglang'),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom('auto', 'fp8'),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1024, max: 32768 }),
        (model, framework, tp, kv, batch, seq) => {
          const gpu = 'h200-sxm';
          const { t, e } = est(model, gpu, {
            framework,
            weights: 'fp8',
            tp,
            gpus: tp,
            batch,
            seq,
            'kv-cache-dtype': kv,
          });
          const stored = e.cache!.kvBytesPerToken;
          // The latent is one (kv_lora_rank + rope) row per layer on every rank, whatever the TP degree.
          expect(stored).toBe(
            (model === 'deepseek-v3' ? 61 : 27) * (512 + 64) * (kv === 'fp8' ? 1 : 2),
          );
          const read = phase(e, 'decode-kv') * gpuRates(findGpu(gpu), t).mem;
          expect(read / (batch * seq * stored)).toBeCloseTo(1, 3);
        },
      ),
      { numRuns: 40 },
    );
  });
  it('the DeepSeek-V3 fp8 8 x H200 decode reads the latent, not 128 heads x 192 per layer', () => {
    const { e } = est('deepseek-v3', 'h200-sxm', {
      framework: 'vllm',
      weights: 'fp8',
      tp: 8,
      gpus: 8,
      batch: 64,
      seq: 8192,
      'kv-cache-dtype': 'fp8',
    });
    // Weights dominate once the cache is the 576-wide latent (full K/V made decode-kv 67% of the step, 894 tok/s;
    // the latent alone 2,083; the block-scaled FP8 linears' kernels, time/block-fp8.ts, add 6.1 ms a step: 1,740;
    // the MLA, shared-expert and router kernels vLLM's decode graph runs, engines/vllm/decode-kernels.ts: 1,472).
    expect(phase(e, 'decode-kv')).toBeLessThan(phase(e, 'decode-weights') / 2);
    expect(e.time!.decodeTokensPerSecond!).toBeGreaterThan(1400);
  });
});

describe('every cache kind: decode bytes from the stored layout', () => {
  const frameworks = ['hf', 'vllm', 'sglang', 'llama.cpp'] as const;
  const models = [
    'llama-3.1-8b', // GQA
    'gpt-oss-20b', // sliding + full attention
    'gemma-3-27b-it', // sliding + full attention
    'qwen3-next-80b-a3b', // Gated DeltaNet state + full attention
    'nemotron-h-8b-base-8k', // Mamba2 state + full attention
  ];
  it('full attention (GQA, MLA): reads = context x the per-token KV memory stores, on every engine', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('llama-3.1-8b', 'deepseek-v2-lite'),
        fc.constantFrom(...frameworks),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom('auto', 'fp8'),
        fc.integer({ min: 1, max: 65536 }),
        (model, framework, tp, kv, ctx) => {
          const arch = resolveModel(model);
          const fw = FRAMEWORKS[framework];
          const { o, e } = est(model, 'h100-sxm', {
            framework,
            tp,
            gpus: tp,
            seq: 4096,
            'kv-cache-dtype': framework === 'hf' ? 'auto' : kv,
          });
          const c = FLOAT_BYTES[floatCompute(o.compute)];
          // llama.cpp's --tp is a row split: the whole cache on the main GPU (tpRowSplit).
          const kvTp = fw.tpRowSplit ? 1 : tp;
          const read = decodeCacheBytes(
            arch,
            fw,
            { c, tp: kvTp, kvElem: kvElementBytes(fw, o.kvCacheDtype, c) },
            ctx,
          );
          // cache.kvBytesPerToken is whole bytes (q8_0's 34/32 bytes per element are not).
          expect(Math.abs(read - e.cache!.kvBytesPerToken * ctx)).toBeLessThanOrEqual(ctx);
        },
      ),
      { numRuns: 40 },
    );
  });
  it('sliding windows and recurrent state: a plain cache reads what it stores; a padded one no more', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...models),
        fc.constantFrom('hf', 'vllm', 'llama.cpp'),
        fc.constantFrom(1, 2, 4),
        fc.integer({ min: 256, max: 65536 }),
        (model, framework, tp, ctx) => {
          const arch = resolveModel(model);
          const fw = FRAMEWORKS[framework];
          const { o } = est(model, 'h100-sxm', { framework, tp, gpus: tp, seq: 4096 });
          const c = FLOAT_BYTES[floatCompute(o.compute)];
          const kvElem = kvElementBytes(fw, o.kvCacheDtype, c);
          const read = decodeCacheBytes(arch, fw, { c, tp, kvElem }, ctx);
          // What the memory model stores for one sequence of ctx tokens (memory.ts kvAndPrefill), the
          // state counted twice (read and written).
          const shape = cacheShapeOf(arch, fw, { c, tp, kvElem, ubatch: LLAMA_CPP_UBATCH });
          let stored = 0;
          for (const g of arch.groups)
            if (g.name === 'decoder')
              stored +=
                g.count * (shape.cells(g, ctx) * shape.tokenBytes(g) + 2 * shape.stateBytes(g));
          if (framework === 'hf') expect(read / stored).toBeCloseTo(1, 6);
          else expect(read).toBeLessThanOrEqual(stored * (1 + 1e-9));
          expect(read).toBeGreaterThan(0);
        },
      ),
      { numRuns: 60 },
    );
  });
  it('a GQA model replicates its KV heads on ranks past kvHeads: each rank reads one head', () => {
    const arch = resolveModel('llama-3.1-8b'); // 8 KV heads of 128
    const fw = FRAMEWORKS.vllm;
    const per = (tp: number) => decodeCacheBytes(arch, fw, { c: 2, tp, kvElem: 2 }, 1);
    expect(per(1)).toBe(32 * 2 * 8 * 128 * 2);
    expect(per(8)).toBe(32 * 2 * 1 * 128 * 2);
    expect(per(16)).toBe(per(8));
  });
});
