// torchtitan compiles its loss with the model, or alone: the vocabulary-sized tensors it holds, compiled and not.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const FLAGS = {
  framework: 'torchtitan',
  method: 'full',
  weights: 'fp32',
  batch: 2,
  seq: 8192,
  checkpointing: 'selective',
  zero: 3,
  gpus: 8,
};

function estimate(flags: Record<string, unknown>, eagerLoss?: boolean) {
  const arch = resolveModel('llama-3.1-8b');
  return buildEstimate(
    arch,
    optionsFromFlags({ ...FLAGS, ...flags }),
    undefined,
    undefined,
    eagerLoss === undefined ? undefined : { eagerLoss },
  );
}
const logitsAtPeak = (flags: Record<string, unknown>, eagerLoss?: boolean): number =>
  estimate(flags, eagerLoss).perGpu.breakdown.logits;
/** What the caching allocator keeps beyond the peak: reserved = allocated x 1.03 + transient. */
const transient = (flags: Record<string, unknown>, eagerLoss?: boolean): number => {
  const g = estimate(flags, eagerLoss).perGpu;
  // torchtitan's allocatorSlack 0.03 (engines/torchtitan/memory.ts).
  return g.reservedBytes - g.allocatedBytes * 1.03;
};

// Llama 3.1 8B: 2 x 8192 tokens x 128,256 vocabulary entries = 2,101,346,304 logits per micro-batch.
const LOGITS = 2 * 8192 * 128_256;

describe('torchtitan compiled loss', () => {
  it('eager: the upcast loss holds three fp32 tensors at the start of backward (12 B a logit)', () => {
    expect(logitsAtPeak({})).toBe(12 * LOGITS);
  });

  it('compiled: the bf16 logits and their bf16 gradient (4 B a logit)', () => {
    expect(logitsAtPeak({ compile: true })).toBe(4 * LOGITS);
  });

  it('a build that ran the loss uncompiled keeps the upcast bytes under --compile', () => {
    expect(logitsAtPeak({ compile: true }, true)).toBe(12 * LOGITS);
  });

  it('the largest temporary the allocator keeps: the fp32 logits eager, their 16-bit gradient compiled', () => {
    expect(transient({})).toBeCloseTo(4 * LOGITS, -3);
    expect(transient({ compile: true })).toBeCloseTo(2 * LOGITS, -3);
    expect(transient({ compile: true }, true)).toBeCloseTo(4 * LOGITS, -3);
  });

  it('a build that compiled the loss alone (compile.components ["loss"]) holds the compiled bytes, model eager', () => {
    const arch = resolveModel('llama-3.1-8b');
    const alone = buildEstimate(arch, optionsFromFlags(FLAGS), undefined, undefined, {
      lossCompiledAlone: true,
    }).perGpu.breakdown.logits;
    expect(alone).toBe(4 * LOGITS);
    expect(logitsAtPeak({})).toBe(12 * LOGITS);
  });

  it('a vocabulary-parallel loss keeps the upcast bytes (its own autograd function)', () => {
    const tp = { tp: 2, gpus: 8, 'loss-parallel': true };
    expect(logitsAtPeak({ ...tp, compile: true })).toBe(logitsAtPeak(tp));
  });
});
