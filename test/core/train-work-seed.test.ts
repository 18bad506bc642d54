/**
 * TRAIN_WORK_SEED (time/train-work-seed.ts) makes V8 give TrainWork's number fields double representation before
 * the planner makes its first TrainWork: it does so only while its keys are trainWork's, in the same order, and
 * its numbers are fractions.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { TRAIN_WORK_SEED } from '../../src/core/time/train-work-seed.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

/** Keys in order, nested objects' keys after their own key. */
const shapeOf = (o: object): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    v !== null && typeof v === 'object'
      ? [k, ...shapeOf(v as object).map((x) => `${k}.${x}`)]
      : [k],
  );

/** Every number of `o` (nested objects' too). */
const numbersOf = (o: object): number[] =>
  Object.values(o).flatMap((v) =>
    typeof v === 'number' ? [v] : v !== null && typeof v === 'object' ? numbersOf(v as object) : [],
  );

describe('TrainWork seed', () => {
  const t = defaultTimeOptions(2);
  const cases = [
    ['llama-2-13b', { method: 'full', gpus: '1' }],
    ['qwen3-30b-a3b', { method: 'lora', gpus: '4', zero: '3', offload: 'optimizer+params' }],
  ] as const;
  for (const [model, flags] of cases)
    it(`has trainWork's keys in trainWork's order (${model}, ${flags.method})`, () => {
      const w = trainWork(modelFacts(resolveModel(model)), optionsFromFlags(flags), t);
      expect(shapeOf(TRAIN_WORK_SEED)).toEqual(shapeOf(w));
    });

  it('holds fractions only, so that every number field starts as a double', () => {
    const numbers = numbersOf(TRAIN_WORK_SEED);
    expect(numbers.length).toBeGreaterThan(50);
    expect(numbers.filter((x) => Number.isInteger(x))).toEqual([]);
  });
});
