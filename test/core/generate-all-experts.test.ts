// transformers 4.55-4.57 run every gpt-oss expert on every token outside training (GptOssExperts.forward's inference
// branch): a decode step then reads all experts' weights, not the distinct ones its tokens route to (time/decode.ts).
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('gpt-oss-20b');
const step = (batch: number, generateAllExperts: boolean) => {
  const o = { ...defaultOptions('inference'), framework: 'hf' as const, batch, seq: 600 };
  const t = estimateTime(arch, o, findGpu('t4'), {
    ...defaultTimeOptions(1),
    generateAllExperts,
  });
  return batch / t.decodeTokensPerSecond!;
};

describe('decode with every expert run on every token', () => {
  it('reads all 32 experts at batch 1, where top-4 routing reads 4: a slower step where bandwidth binds (T4)', () => {
    expect(step(1, true)).toBeGreaterThan(step(1, false) * 1.5);
  });

  it('changes little where the batch already routes to nearly every expert', () => {
    // 128 tokens of top-4 of 32 reach 32 x (1 - (28/32)^128), all but 1e-7 of the experts.
    expect(step(128, true) / step(128, false)).toBeCloseTo(1, 2);
  });
});
