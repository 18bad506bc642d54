// bitsandbytes' one-token 4-bit call (gemv_4bit) adds a biased linear's bias in ops of its own: Linear4bit.forward's
// bias.to(compute_dtype) and matmul_4bit's `out += bias` (time/train-work.ts BNB4_GEMV_BIAS_OPS).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const step = (model: string, weights: string, batch = 1) =>
  estimateTime(
    resolveModel(model),
    { ...defaultOptions('inference'), framework: 'litgpt', weights, batch, seq: 55 } as never,
    findGpu('a100-40gb-sxm'),
    defaultTimeOptions(1),
  ).stepSeconds;

describe('bitsandbytes 4-bit mat-vec with a bias', () => {
  it('counts the biased linears of a layer', () => {
    expect(
      modelFacts(resolveModel('stabilityai/stablelm-base-alpha-3b')).biasedLinearsPerLayer,
    ).toBe(6);
    expect(modelFacts(resolveModel('meta-llama/Llama-2-7b-hf')).biasedLinearsPerLayer).toBe(0);
  });

  it('adds 2 eager ops per biased linear to a batch-1 eager step, on top of the 4 every 4-bit call adds', () => {
    // StableLM-Alpha 3B: 16 layers x 6 biased linears; both steps are dispatch-bound, so the 4-bit step pays
    // 96 x (4 + 2) ops of 21 us more than the bf16 one.
    const m = 'stabilityai/stablelm-base-alpha-3b';
    const extra = step(m, 'nf4') - step(m, 'bf16');
    // (stepSeconds is rounded to three significant figures: within 1%.)
    expect(extra / (96 * 6 * 21e-6)).toBeCloseTo(1, 2);
  });
});
