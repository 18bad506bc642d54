/**
 * A k-bit run whose residual stream is fp32 (TimeOptions.kbitFp32Stream: TRL's k-bit preparation kept the norms in
 * fp32 and bitsandbytes' Linear4bit returns its output in its input's dtype): elementwise traffic timed as under
 * autocast, two cast kernels for each linear fed an fp32 input, and under autocast the bytes those casts and the
 * fp32-fed weights' casts move (time/kbit-stream.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { kbitStreamCastBytes, kbitStreamCastOps } from '../../src/core/time/kbit-stream.js';
import { buildEstimate } from '../../src/core/estimate.js';
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

describe("the fp32 stream's casts under autocast (kbitStreamCastBytes)", () => {
  const arch = resolveModel('llama-3.1-8b');
  const m = modelFacts(arch);
  const t = defaultTimeOptions(1);

  it('counts a llama layer by hand: 79,872 cast elements a token, 201,326,592 fp32-fed weight elements', () => {
    // Activations: q, k, v, gate, up and down, input and output (8,192 + 5,120 + 5,120 + 3 x 18,432), and q, k and
    // v again into the attention (6,144); 6 bytes a cast, in forward, recompute and backward.
    // Weights: q, k, v (4,096 x 6,144) and gate, up, down (3 x 4,096 x 14,336), two casts of 6 bytes, forward and
    // recompute. o (fed the attention's 16-bit output) takes none.
    expect(kbitStreamCastBytes(arch, 1, 1, 1, 1)).toBe(3 * 6 * 79_872 + 2 * 2 * 6 * 201_326_592);
    expect(kbitStreamCastBytes(arch, 1, 1, 0, 1)).toBe(2 * 6 * 79_872 + 2 * 6 * 201_326_592);
  });

  it("counts every expert's weights of a looped MoE and the routed copies' activations", () => {
    const moe = resolveModel('mixtral-8x7b-v0.1');
    // Per token: q, k, v as above (attention 4,096, KV 1,024) and two routed experts' gate, up and down.
    const act = 6_144 + (8_192 + 5_120 + 5_120) + 2 * 3 * 18_432;
    const weight = 4_096 * 6_144 + 8 * 3 * 4_096 * 14_336;
    expect(kbitStreamCastBytes(moe, 1, 1, 1, 1)).toBe(3 * 6 * act + 2 * 2 * 6 * weight);
    // Fused experts bitsandbytes leaves in floating point are no Linear4bit: only q, k and v count.
    const dense = 6_144 + 8_192 + 5_120 + 5_120;
    expect(kbitStreamCastBytes(moe, 1, 1, 1, 1, false)).toBe(
      3 * 6 * dense + 2 * 2 * 6 * 4_096 * 6_144,
    );
  });

  it('is affine in tokens, linear in layers and divided by the tensor-parallel degree', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 65_536 }),
        fc.integer({ min: 1, max: 80 }),
        fc.constantFrom(0, 1),
        fc.constantFrom(1, 2, 4, 8),
        (tokens, layers, recompute, tp) => {
          const f = (n: number, l = layers, p = tp) =>
            kbitStreamCastBytes(arch, n, l, recompute, p);
          expect(f(2 * tokens) - f(tokens)).toBeCloseTo(f(tokens) - f(0), -2);
          expect(f(tokens, 2 * layers)).toBeCloseTo(2 * f(tokens), -2);
          expect(f(tokens, layers, 1)).toBeCloseTo(tp * f(tokens), -2);
          expect(f(tokens)).toBeGreaterThan(f(0));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('adds to the step only for a QLoRA run under autocast', () => {
    const o = run();
    const stream = { ...t, kbitFp32Stream: true };
    const r = gpuRates(findGpu('a100-80gb-sxm')!, t);
    const cast = trainWork(m, o, stream);
    const noCast = trainWork(m, o, { ...stream, noAutocast: true });
    expect(cast.dequantBytes - noCast.dequantBytes).toBe(
      kbitStreamCastBytes(arch, 4 * 4096, m.layers, 1, 1),
    );
    expect(trainStep(cast, r)).toBeGreaterThan(trainStep(noCast, r));
    const lora = run({ method: 'lora', weights: 'bf16' });
    expect(trainWork(m, lora, stream)).toEqual(trainWork(m, lora, t));
  });
});

describe('a trainer that prepares the k-bit model itself (kbitPreparingObjectives) pays the casts', () => {
  it('QLoRA ORPO on the hf engine runs the fp32 stream and its casts; QLoRA DPO does not', () => {
    const arch = resolveModel('llama-3.1-8b');
    const gpu = findGpu('a100-80gb-sxm')!;
    const time = defaultTimeOptions(1);
    const step = (objective: string) =>
      buildEstimate(arch, run({ objective, seq: 2048 }), gpu, time).time!.phases.find(
        (p) => p.phase === 'dequantize',
      )!.seconds;
    // Both dequantize the same NF4 weights per pair of sequences; ORPO adds its casts (about 0.3 s at 4 x 2,048).
    expect(step('orpo')).toBeGreaterThan(step('dpo') + 0.2);
  });
});
