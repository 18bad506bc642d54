/**
 * A k-bit run whose residual stream is fp32 (TimeOptions.kbitFp32Stream: TRL's k-bit preparation kept the norms in
 * fp32 and bitsandbytes' Linear4bit returns its output in its input's dtype): elementwise traffic timed as under
 * autocast, and two cast kernels for each linear fed an fp32 input (time/kbit-stream.ts).
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { kbitStreamCastOps } from '../../src/core/time/kbit-stream.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const run = (extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'qlora',
    'lora-rank': 16,
    'lora-targets': 'q,k,v,o',
    batch: 4,
    seq: 4096,
    checkpointing: 'full',
    attention: 'flash',
    gpu: 'a100-80gb-sxm',
    framework: 'hf',
    ...extra,
  });

describe('a k-bit run with an fp32 residual stream (kbitFp32Stream)', () => {
  const arch = resolveModel('llama-3.1-8b');
  const m = modelFacts(arch);
  const t = defaultTimeOptions(1);

  it('counts an input and an output cast for q, k, v, gate, up and down: twelve a llama layer', () => {
    expect(kbitStreamCastOps(arch)).toBe(12);
  });

  it('moves half the elementwise traffic to fp32 and adds the casts, so the step is slower', () => {
    const o = run();
    const plain = trainWork(m, o, t);
    const fp32 = trainWork(m, o, { ...t, kbitFp32Stream: true });
    expect(fp32.fwdOps - plain.fwdOps).toBe(12 * m.layers);
    expect(fp32.fwdElemBytes).toBeGreaterThan(plain.fwdElemBytes * 1.2);
    expect(fp32.fwdGemmFlops).toBe(plain.fwdGemmFlops);
    const r = gpuRates(findGpu('a100-80gb-sxm')!, t);
    expect(trainStep(fp32, r)).toBeGreaterThan(trainStep(plain, r));
  });

  it('leaves 16-bit LoRA and compiled runs alone', () => {
    const lora = run({ method: 'lora', weights: 'bf16' });
    expect(trainWork(m, lora, { ...t, kbitFp32Stream: true })).toEqual(trainWork(m, lora, t));
    // A compiled k-bit run keeps its stream's traffic; the build's fp32 adapters (memory/trainable-width.ts
    // adapterProfile: the same build kept PEFT's fp32 adapters) still widen the optimizer step, as kbitFp32Adapters does.
    const compiled = run({ compile: true });
    expect(trainWork(m, compiled, { ...t, kbitFp32Stream: true })).toEqual(
      trainWork(m, compiled, { ...t, kbitFp32Adapters: true }),
    );
  });
});
