import { describe, expect, it } from 'vitest';
import { eagerPrefillPassBytes } from '../../src/core/time/eager-prefill-passes.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { rowEngineVersion } from '../helpers/row-version.js';

// An eager transformers Llama forward's elementwise passes in a prefill (time/eager-prefill-passes.ts), read off
// modeling_llama.py at v4.35.2 / v4.37.2 (engines/hf/memory.ts eagerPrefillPasses).
describe('eager prefill passes', () => {
  const l2 = modelFacts(resolveModel('llama-2-7b'));
  const base: EstimateOptions = {
    ...defaultOptions('inference'),
    framework: 'hf',
    weights: 'fp16',
    compute: 'fp16',
    attention: 'sdpa',
  };
  const v4352 = {
    ...defaultTimeOptions(1),
    engineVersion: rowEngineVersion('runllamas-fwd-l2-7b-fp16-a100-hf4352-b1'),
  };
  const bytes = (o: Partial<EstimateOptions>, tokens: number, seqs: number, t = v4352) =>
    eagerPrefillPassBytes(l2, { ...base, ...o }, tokens, seqs, t);

  it('counts each pass per token and layer, the final norm, and every position logits cast to fp32', () => {
    const h = l2.hidden;
    const perTokenLayer =
      2 * 36 * h + 20 * (l2.attnWidth + l2.kvWidth) + 4 * l2.attnWidth + 10 * l2.ffn + 2 * 6 * h;
    const rows = 4 * 256;
    expect(bytes({}, 256, 4)).toBeCloseTo(
      l2.layers * rows * perTokenLayer + rows * 36 * h + rows * l2.vocab * 6,
      -3,
    );
  });

  it('grows with tokens x tokens under eager attention only', () => {
    const scores = l2.layers * 4 * l2.heads * 256 * 256 * 20;
    expect(bytes({ attention: 'eager' }, 256, 4) - bytes({}, 256, 4)).toBeCloseTo(scores, -3);
    // FlashAttention-2 writes its output token-major: no copy before o_proj.
    expect(bytes({}, 256, 4) - bytes({ attention: 'flash' }, 256, 4)).toBeCloseTo(
      l2.layers * 1024 * 4 * l2.attnWidth,
      -3,
    );
  });

  it('keeps the last position logits only from the release generate passes num_logits_to_keep', () => {
    const later = { ...defaultTimeOptions(1), engineVersion: '4.45.0 (transformers)' };
    expect(bytes({}, 256, 4) - bytes({}, 256, 4, later)).toBeCloseTo(1024 * l2.vocab * 6, -3);
  });

  it('prices nothing compiled or on an engine without the passes', () => {
    expect(bytes({ compile: true }, 256, 4)).toBe(0);
    expect(bytes({ framework: 'vllm' }, 256, 4)).toBe(0);
  });
});
