// A Liger twin's count-free work made from its pair's (time/liger-twin-work.ts ligerTwinFreeWork) is the work
// countFreeWork makes from scratch for it: Liger reaches the work only through computeWork. The planner makes the
// second row of each Liger pair so (plan/row-work.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { ligerTwinFreeWork } from '../../src/core/time/liger-twin-work.js';
import { countFreeWork, type CountFreeWork } from '../../src/core/time/train-work.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { optionsArb } from '../helpers/arbitraries.js';

// A model type Liger patches (dense) and an MoE one, so that the twin's compute work differs where Liger applies.
const MODELS = ['llama-2-13b', 'qwen3-30b-a3b'] as const;
const FACTS = MODELS.map((id) => modelFacts(resolveModel(id)));

/** Time options the search reads a training row at, with the knobs that change the loss path and streams. */
const timeArb: fc.Arbitrary<TimeOptions> = fc
  .record({
    trainerReadsLogits: fc.boolean(),
    kbitFp32Stream: fc.boolean(),
    sdpaPaddingMask: fc.boolean(),
    moeLoop: fc.boolean(),
    zeroAutoBuckets: fc.boolean(),
  })
  .map((x) => ({ ...defaultTimeOptions(8), gradAccum: 4, ...x }));

/** A CountFreeWork with its ZeRO hooks' options left out. */
const countsOnly = (w: CountFreeWork) => ({ ...w, zh: w.zh && { ...w.zh, o: undefined } });

describe('ligerTwinFreeWork', () => {
  it("is countFreeWork's own work for either twin, made from the other's (fast-check)", () => {
    fc.assert(
      fc.property(
        optionsArb({ methods: ['full', 'lora', 'qlora'], maxSeq: 4096, maxDp: 8 }),
        fc.nat(MODELS.length - 1),
        timeArb,
        fc.boolean(),
        (o, mi, t, ligerFirst) => {
          const m = FACTS[mi]!;
          const made: EstimateOptions = { ...o, liger: ligerFirst };
          const twin: EstimateOptions = { ...o, liger: !ligerFirst };
          const own = countFreeWork(m, twin, t);
          const shared = ligerTwinFreeWork(m, twin, t, countFreeWork(m, made, t));
          // The ZeRO hooks' counts keep the options they were counted for, whose framework and stage alone are read
          // again (zero-hooks.ts zeroHookOpsAt): as the rows of other GPU counts share them (train-work-count-free.test.ts).
          expect(countsOnly(shared)).toEqual(countsOnly(own));
          // And so is the step's work made on it.
          expect(trainWork(m, twin, t, undefined, undefined, shared)).toEqual(
            trainWork(m, twin, t),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it("is not vacuous: Liger changes the compute work of a patched model's LoRA row", () => {
    const m = FACTS[0]!;
    const t = { ...defaultTimeOptions(8), gradAccum: 4 };
    const o = fc.sample(optionsArb({ methods: ['lora'], maxSeq: 2048, maxDp: 1 }), {
      numRuns: 1,
      seed: 1,
    })[0]!;
    const plain = countFreeWork(m, { ...o, liger: false, compile: false, framework: 'hf' }, t);
    const liger = countFreeWork(m, { ...o, liger: true, compile: false, framework: 'hf' }, t);
    expect(liger.cw).not.toEqual(plain.cw);
  });
});
