/**
 * A decode step whose routed experts' bitsandbytes 4-bit down projections dequantize to fp32 and every other linear to
 * 16 bits (TimeOptions.bnbDecodeFp32MoeDown: Unsloth's gpt-oss on a GPU without bf16): the down projections' share of
 * the step's copy is 4 bytes an element, the rest 2. Slower than an all-16-bit step and faster than an all-fp32 one
 * wherever the step dequantizes; a dense model (no routed experts) and a step that does not dequantize do not change.
 */
import { describe, expect, it } from 'vitest';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

function step(model: string, batch: number, extra: Partial<TimeOptions>): number {
  const f: RawFlags = {
    model,
    gpu: 't4',
    method: 'inference',
    framework: 'hf',
    compute: 'fp16',
    weights: 'nf4',
    'quant-format': 'bnb',
    seq: 600,
    batch,
  };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), generateAllExperts: true, ...extra };
  const gpu = findGpu('t4');
  return decodeStep(modelFacts(resolveModel(model)), o, t, gpuRates(gpu, t)).stepSeconds;
}

describe('bitsandbytes 4-bit decode with the experts’ down projections in fp32', () => {
  it('a dequantizing step (batch 2) sits between all-16-bit and all-fp32 copies', () => {
    const half = step('gpt-oss-20b', 2, {});
    const down = step('gpt-oss-20b', 2, { bnbDecodeFp32MoeDown: true });
    const full = step('gpt-oss-20b', 2, { bnbDecodeFp32: true });
    expect(down).toBeGreaterThan(1.1 * half);
    expect(down).toBeLessThan(full);
  });

  it('a dense model and batch 1 (gemv_4bit, no copy) do not change', () => {
    expect(step('qwen3-8b', 2, { bnbDecodeFp32MoeDown: true })).toBe(step('qwen3-8b', 2, {}));
    expect(step('gpt-oss-20b', 1, { bnbDecodeFp32MoeDown: true })).toBe(step('gpt-oss-20b', 1, {}));
  });
});
