// torchtitan compiles its loss with the model: the vocabulary-sized tensors it holds, compiled and not.
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

function logitsAtPeak(flags: Record<string, unknown>, eagerLoss?: boolean): number {
  const arch = resolveModel('llama-3.1-8b');
  const r = buildEstimate(
    arch,
    optionsFromFlags({ ...FLAGS, ...flags }),
    undefined,
    undefined,
    eagerLoss === undefined ? undefined : { eagerLoss },
  );
  return r.perGpu.breakdown.logits;
}

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

  it('a vocabulary-parallel loss keeps the upcast bytes (its own autograd function)', () => {
    const tp = { tp: 2, gpus: 8, 'loss-parallel': true };
    expect(logitsAtPeak({ ...tp, compile: true })).toBe(logitsAtPeak(tp));
  });
});
