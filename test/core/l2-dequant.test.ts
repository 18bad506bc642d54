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

  // The GeForce L2 sizes each entry cites: GA102 whitepaper (RTX 3090, 3090 Ti 6144 KB; RTX 3080 5120 KB), the RTX 5090's
  // 96 MB and the RTX 5080's and 4080 Super's 64 MB (the entries' `sources`).
  const GEFORCE_L2_MIB: Record<string, number> = {
    'rtx-3080-10gb': 5,
    'rtx-3090': 6,
    'rtx-3090-ti': 6,
    'rtx-4080-super': 64,
    'rtx-4090': 72,
    'rtx-5080': 64,
    'rtx-5090': 96,
  };
  for (const [id, mib] of Object.entries(GEFORCE_L2_MIB))
    it(`${id} carries its published L2 size (${mib} MiB)`, () => {
      expect(findGpu(id).l2CacheMiB).toBe(mib);
    });

  it("the RTX 5090's 96 MB holds Llama-3.1-8B's attention matrices (32 MB copies): faster than without it", () => {
    const rtx5090 = findGpu('rtx-5090');
    const f = { ...bnb, gpu: 'rtx-5090' };
    expect(step('llama-3.1-8b', f, rtx5090)).toBeLessThan(
      step('llama-3.1-8b', f, { ...rtx5090, l2CacheMiB: undefined }),
    );
  });

  it("the RTX 3090's 6 MB holds a 0.5B model's square matrices but none of an 8B model's", () => {
    const rtx3090 = findGpu('rtx-3090');
    const bare = { ...rtx3090, l2CacheMiB: undefined };
    const f = { ...bnb, gpu: 'rtx-3090' };
    expect(step('qwen2.5-0.5b', f, rtx3090)).toBeLessThan(step('qwen2.5-0.5b', f, bare));
    expect(step('llama-3.1-8b', f, rtx3090)).toBe(step('llama-3.1-8b', f, bare));
  });

  it('batch 1 (the fused 4-bit GEMV, no copy) and Marlin (no copy) do not change', () => {
    const one = { ...bnb, batch: 1 };
    expect(step('qwen2.5-3b', one)).toBe(step('qwen2.5-3b', one, withoutL2));
    const marlin: RawFlags = { weights: 'int4', 'quant-format': 'marlin', batch: 8, seq: 512 };
    expect(step('qwen2.5-3b', marlin)).toBe(step('qwen2.5-3b', marlin, withoutL2));
  });
});
