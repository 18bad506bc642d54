// auto-gptq's cuda-old QuantLinear dequantizing GPTQ weights in torch ops (src/core/time/gptq-dequant.ts), timed only
// for rows of such builds (TimeOptions.gptqTorchDequant).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('qwen2.5-7b');
const gpu = findGpu('a100-80gb-sxm');
const o = {
  ...defaultOptions('qlora'),
  weights: 'int4' as const,
  compute: 'fp16' as const,
  batch: 1,
  seq: 256,
  checkpointing: 'full' as const,
  framework: 'hf' as const,
};
const dequant = (t: ReturnType<typeof defaultTimeOptions>) =>
  estimateTime(arch, o, gpu, { ...t, quantFormat: 'gptq' }).phases.find(
    (p) => p.phase === 'dequantize',
  )?.seconds ?? 0;

describe('GPTQ weights dequantized in torch ops', () => {
  it('costs 16.5 B a weight element twice a checkpointed micro-batch, against the fused 2.5 B three times', () => {
    const t = defaultTimeOptions(1);
    const fused = dequant(t);
    const torch = dequant({ ...t, gptqTorchDequant: true });
    expect(fused).toBeGreaterThan(0);
    expect(torch / fused).toBeCloseTo((2 * 16.5) / (3 * 2.5), 1);
  });

  it('leaves other quantization formats alone', () => {
    const t = defaultTimeOptions(1);
    const bnb = (x: typeof t) =>
      estimateTime(arch, { ...o, weights: 'nf4' }, gpu, { ...x, quantFormat: 'bnb' }).stepSeconds;
    expect(bnb({ ...t, gptqTorchDequant: true })).toBe(bnb(t));
  });
});
