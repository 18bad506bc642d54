/**
 * A decode step that runs bitsandbytes' 4-bit path in fp32 (TimeOptions.bnbDecodeFp32: the QuantStates of an fp32
 * checkpoint vLLM quantized while loading, replayed from CUDA graphs captured before Unsloth reset them to 16 bits)
 * writes and reads back a 4-byte dequantized copy and multiplies at the fp32 rate: slower wherever the step
 * dequantizes (two or more rows), unchanged where it does not (batch 1's gemv_4bit, kernels without a copy).
 */
import { describe, expect, it } from 'vitest';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

function step(flags: RawFlags, fp32: boolean, gpu = 't4'): number {
  const f: RawFlags = {
    model: 'qwen3-8b',
    gpu,
    method: 'inference',
    framework: 'vllm',
    compute: 'fp16',
    seq: 256,
    ...flags,
  };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), bnbDecodeFp32: fp32 };
  return decodeStep(modelFacts(resolveModel('qwen3-8b')), o, t, gpuRates(findGpu(gpu), t))
    .stepSeconds;
}

describe('bitsandbytes 4-bit decode in fp32', () => {
  const bnb: RawFlags = { weights: 'nf4', 'quant-format': 'bnb', batch: 4 };

  it('a dequantizing step (batch 4) reads a 4-byte copy: well over a 16-bit copy, under twice it', () => {
    const half = step(bnb, false);
    const full = step(bnb, true);
    expect(full).toBeGreaterThan(1.5 * half);
    expect(full).toBeLessThan(2 * half);
  });

  it('batch 1 (gemv_4bit, no copy) and a kernel without a copy do not change', () => {
    const one = { ...bnb, batch: 1 };
    expect(step(one, true)).toBe(step(one, false));
    const marlin: RawFlags = { weights: 'int4', 'quant-format': 'marlin', batch: 4 };
    expect(step(marlin, true, 'a100-80gb-sxm')).toBe(step(marlin, false, 'a100-80gb-sxm'));
  });
});
