/**
 * A kernel that dequantizes a matrix to a 16-bit copy and then multiplies it (bitsandbytes' 4-bit path above
 * batch 1) reads the copy back from L2 where it fits: a card with the catalog's L2 size decodes no slower than the
 * same card without it, and faster where a model's shards fit. Kernels that never dequantize to memory are
 * unaffected.
 */
import { describe, expect, it } from 'vitest';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const rtx4090 = findGpu('rtx-4090');
const withoutL2 = { ...rtx4090, l2CacheMiB: undefined };

function step(model: string, flags: RawFlags, gpu = rtx4090): number {
  const f: RawFlags = { model, gpu: 'rtx-4090', method: 'inference', framework: 'vllm', ...flags };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  return decodeStep(modelFacts(resolveModel(model)), o, t, gpuRates(gpu, t)).stepSeconds;
}

describe('dequantized copies read back from L2', () => {
  it('the RTX 4090 carries its L2 size', () => {
    expect(rtx4090.l2CacheMiB).toBe(72);
  });

  const bnb: RawFlags = { weights: 'nf4', 'quant-format': 'bnb', batch: 8, seq: 512 };
  for (const model of ['mistral-7b-v0.3', 'qwen2.5-3b', 'llama-3.1-8b'])
    it(`${model}: bitsandbytes 4-bit at batch 8 is faster with the L2 than without`, () => {
      expect(step(model, bnb)).toBeLessThan(step(model, bnb, withoutL2));
    });

  it('batch 1 (the fused 4-bit GEMV, no copy) and Marlin (no copy) do not change', () => {
    const one = { ...bnb, batch: 1 };
    expect(step('qwen2.5-3b', one)).toBe(step('qwen2.5-3b', one, withoutL2));
    const marlin: RawFlags = { weights: 'int4', 'quant-format': 'marlin', batch: 8, seq: 512 };
    expect(step('qwen2.5-3b', marlin)).toBe(step('qwen2.5-3b', marlin, withoutL2));
  });
});
