// A serving search's flash and SDPA configurations share their memory estimates (memory/inference.ts
// attentionAlike, plan/memory-twins.ts, memory/surface.ts AlikeEstimates): an inference estimate must read the
// attention only as eager or not, and surfaces that share estimates must still count the ones they ask for.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { estimateMemory } from '../../src/core/memory/memory.js';
import { attentionAlike } from '../../src/core/memory/inference.js';
import { alikeEstimates, memorySurface } from '../../src/core/memory/surface.js';
import { memoryTwinsOf } from '../../src/core/plan/memory-twins.js';
import { gpuContext } from '../../src/core/time/hardware.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';

const options = (flags: Record<string, unknown>) => {
  const all = { method: 'inference', seq: 4096, ...flags };
  return withEngineDefaults(optionsFromFlags(all), all);
};

describe('inference estimates with flash or SDPA attention', () => {
  // Every serving engine, dense, MoE and vision models (with images), quantized, tensor-parallel, fp8 KV, speculative,
  // offloaded llama.cpp layers, with and without a GPU's capacity (the KV pool): a new read of the attention fails.
  it('are the same wherever attentionAlike holds', () => {
    const models = [
      'llama-3.1-8b',
      'qwen3-30b-a3b',
      'llama-3.2-11b-vision',
      'qwen2-vl-7b-instruct',
    ];
    const contexts = [{}, gpuContext(findGpu('rtx-4090')), gpuContext(findGpu('h100-sxm'))];
    let checked = 0;
    for (const model of models) {
      const arch = resolveModel(model);
      for (const framework of ['vllm', 'sglang', 'llama.cpp', 'hf'])
        for (const extra of [
          {},
          { weights: framework === 'llama.cpp' ? 'q4_k_m' : 'int4' },
          { 'kv-cache-dtype': 'fp8' },
          { speculative: 'ngram', 'spec-tokens': 2, 'spec-acceptance': 0.6 },
          framework === 'llama.cpp' ? { 'gpu-layers': 8 } : { 'max-loras': 2, 'lora-rank': 16 },
          model.includes('v') ? { images: 2 } : { 'prompt-tokens': 3000 },
        ])
          for (const [tp, batch] of [
            [1, 1],
            [2, 8],
          ])
            for (const ctx of contexts) {
              const o = (attention: string) =>
                options({ framework, attention, tp, gpus: tp, batch, ...extra });
              expect(attentionAlike(o('flash'))).toBe(true);
              expect(attentionAlike(o('eager'))).toBe(false);
              const flash = JSON.stringify(estimateMemory(arch, o('flash'), ctx));
              expect(JSON.stringify(estimateMemory(arch, o('sdpa'), ctx))).toBe(flash);
              checked++;
            }
    }
    expect(checked).toBe(4 * 4 * 6 * 2 * 3);
    // Eager attention keeps its scores: not alike.
    const arch = resolveModel('llama-3.1-8b');
    const e = estimateMemory(arch, options({ framework: 'hf', attention: 'eager', batch: 8 }));
    const f = estimateMemory(arch, options({ framework: 'hf', attention: 'flash', batch: 8 }));
    expect(JSON.stringify(e)).not.toBe(JSON.stringify(f));
    expect(attentionAlike({ ...options({ framework: 'hf' }), method: 'lora' })).toBe(false);
  });

  it("share a surface's estimates, each surface counting what it asks for", () => {
    const arch = resolveModel('llama-3.1-8b');
    for (const framework of ['vllm', 'llama.cpp']) {
      const flash = options({ framework, attention: 'flash', batch: 4 });
      const sdpa = options({ framework, attention: 'sdpa', batch: 4 });
      const alike = alikeEstimates();
      const a = memorySurface(arch, flash, {}, undefined, undefined, undefined, undefined, alike);
      const b = memorySurface(arch, sdpa, {}, undefined, undefined, undefined, undefined, alike);
      const alone = memorySurface(arch, sdpa);
      for (const [batch, dp] of [
        [4, 1],
        [2, 1],
        [4, 2],
        [8, 4],
      ] as const) {
        const own = alone.at(batch, dp);
        expect(a.at(batch, dp)).toEqual(own);
        expect(b.at(batch, dp)).toEqual(own);
      }
      expect(a.evaluations).toBe(alone.evaluations);
      expect(b.evaluations).toBe(alone.evaluations);
      expect(alike.exact.size + alike.fits.size).toBeGreaterThan(0);
    }
  });

  it('pair configurations by their options less micro-batch and attention', () => {
    const v = (attention: string, batch: number, method = 'inference') => ({
      options: { ...options({ framework: 'vllm', attention, batch }), method } as ReturnType<
        typeof options
      >,
    });
    expect(
      memoryTwinsOf([
        v('flash', 2),
        v('flash', 4),
        v('sdpa', 2),
        v('eager', 2),
        v('sdpa', 2, 'lora'),
        { options: options({ framework: 'vllm', attention: 'sdpa', batch: 2, tp: 2, gpus: 2 }) },
      ]),
    ).toEqual([0, 0, 0, -1, -1, 5]);
  });
});
