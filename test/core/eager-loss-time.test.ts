/**
 * A build that compiled its model but ran the loss eager (TimeOptions.eagerLoss, a row's `loss_compile: "off"`):
 * torchtitan at pytorch/torchtitan@9dec370 (train.py: "compiling loss function causes CUDA errors, turning off for
 * now") and prime-rl's trainer, which compiles each decoder layer alone (src/prime_rl/trainer/model.py `apply_compile` at
 * PrimeIntellect-ai/prime-rl@b798a90d) and runs torch CrossEntropyLoss over the logits cast `.float()` (sft/train.py).
 * The loss's logit traffic is then the eager loss's, not the compiled one's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('Qwen/Qwen3-0.6B'));

const work = (seq: number, compile: boolean, eagerLoss: boolean) =>
  trainWork(
    m,
    optionsFromFlags({
      method: 'full',
      weights: 'fp32',
      batch: 1,
      seq,
      checkpointing: 'full',
      zero: 3,
      gpus: 1,
      gpu: 'h100-sxm',
      framework: 'torchtitan',
      attention: 'flash',
      compile,
    }),
    { ...defaultTimeOptions(1), eagerLoss },
  );

describe('an eager loss under a compiled model', () => {
  it("reads the logits at the eager loss's 22 B an entry in forward and 26 in backward, against the compiled loss's 8 and 16", () => {
    const compiled = work(8192, true, false);
    const eager = work(8192, true, true);
    expect(eager.fwdElemBytes - compiled.fwdElemBytes).toBeCloseTo(8192 * m.vocab * 14, 0);
    expect(eager.lossBwdBytes - compiled.lossBwdBytes).toBeCloseTo(8192 * m.vocab * 10, 0);
  });

  it('changes nothing where the model itself runs eager', () => {
    fc.assert(
      fc.property(fc.constantFrom(2048, 8192, 16384), (seq) => {
        expect(work(seq, false, true).fwdElemBytes).toBe(work(seq, false, false).fwdElemBytes);
      }),
    );
  });
});
