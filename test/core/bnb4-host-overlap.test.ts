// bitsandbytes' 4-bit host dispatch runs under the GPU's work of its pass (time/train-step.ts exposedBnb4Host).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const dequantize = (batch: number, seq: number, doubleQuant: boolean) => {
  const o = { ...defaultOptions('qlora'), batch, seq, doubleQuant };
  const t = estimateTime(resolveModel('llama-2-7b'), o, findGpu('h100-sxm'), defaultTimeOptions(1));
  return t.phases.find((p) => p.phase === 'dequantize')!.seconds;
};

describe("bitsandbytes' 4-bit host dispatch", () => {
  it('hides under a GPU-bound pass: double quantization adds host ops, not step time', () => {
    // Double quantization adds three host ops a 4-bit call (BNB4_DQ_EXTRA_OPS) and no dequantization bytes: at
    // 4 x 2,048 tokens on an H100 every pass's GPU work outlasts its host dispatch.
    expect(dequantize(4, 2048, true)).toBeCloseTo(dequantize(4, 2048, false), 6);
  });

  it('still costs the dequantization passes their memory traffic', () => {
    // 2 or 3 passes over 6.5 G elements at 2.5 B an element: tens of milliseconds on an H100.
    expect(dequantize(4, 2048, false)).toBeGreaterThan(0.01);
  });
});
