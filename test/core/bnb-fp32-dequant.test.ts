/**
 * bitsandbytes quant states that record fp32 (a 32-bit checkpoint vLLM quantized while loading) make the 4-bit path
 * above batch 1 dequantize to an fp32 copy and multiply in fp32 (TimeOptions.bnbFp32Dequant): 4 bytes an element
 * written and read back where a 16-bit copy moves 2. The step grows by less than that copy traffic's ratio, and the
 * batch-1 GEMV (no copy) and other kernels do not move.
 */
import { describe, expect, it } from 'vitest';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

function step(model: string, flags: RawFlags, fp32: boolean): number {
  const f: RawFlags = { model, gpu: 't4', method: 'inference', framework: 'vllm', ...flags };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), bnbFp32Dequant: fp32 };
  return decodeStep(modelFacts(resolveModel(model)), o, t, gpuRates(findGpu('t4'), t)).stepSeconds;
}

describe('fp32 bitsandbytes quant states', () => {
  const bnb: RawFlags = { weights: 'nf4', 'quant-format': 'bnb', batch: 4, seq: 256 };
  for (const model of ['qwen3-8b', 'llama-3.1-8b'])
    it(`${model}: bitsandbytes 4-bit at batch 4 on a T4 is slower, by less than the copy traffic's 8.5 / 4.5`, () => {
      const ratio = step(model, bnb, true) / step(model, bnb, false);
      expect(ratio).toBeGreaterThan(1.5);
      expect(ratio).toBeLessThan(8.5 / 4.5);
    });

  it('batch 1 (the fused 4-bit GEMV, no copy) and Marlin (no copy) do not change', () => {
    const one = { ...bnb, batch: 1 };
    expect(step('qwen3-8b', one, true)).toBe(step('qwen3-8b', one, false));
    const marlin: RawFlags = { weights: 'int4', 'quant-format': 'marlin', batch: 4, seq: 256 };
    expect(step('qwen3-8b', marlin, true)).toBe(step('qwen3-8b', marlin, false));
  });
});
