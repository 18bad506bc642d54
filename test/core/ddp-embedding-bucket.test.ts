/**
 * torch DDP's last bucket holds the input embedding's gradient (time/train-comm-work.ts ddpEmbeddingBucketBytes): the
 * embedding is the model's first op, so its AccumulateGrad fires last in backward and the Reducer's bucket holding it
 * starts its all-reduce only when backward ends (torch/nn/parallel/distributed.py `_compute_bucket_assignment_by_size`,
 * reducer.cpp `rebuild_buckets` / `mark_bucket_ready`).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gradReduceElementBytes } from '../../src/core/memory/trainable-width.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { trainWork } from '../../src/core/time/train-work.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const facts = modelFacts(resolveModel('llama-3.2-1b'));
const work = (o: EstimateOptions) => trainWork(facts, o, defaultTimeOptions(o.gpus));

describe("torch DDP's last bucket", () => {
  it('holds the whole vocab x hidden embedding gradient of a full fine-tune over DDP', () => {
    const o: EstimateOptions = { ...defaultOptions('full'), framework: 'hf', gpus: 2, zero: 0 };
    const width = gradReduceElementBytes(o, FRAMEWORKS.hf, {});
    expect(work(o).lastBucketEmbedBytes).toBe(facts.vocab * facts.hidden * width);
  });

  it('holds none where the embedding does not train, one rank reduces nothing, or ZeRO reduces per micro-batch', () => {
    const full: EstimateOptions = { ...defaultOptions('full'), framework: 'hf', gpus: 2, zero: 0 };
    expect(
      work({ ...defaultOptions('lora'), framework: 'hf', gpus: 2, zero: 0 }).lastBucketEmbedBytes,
    ).toBe(0);
    expect(work({ ...full, gpus: 1 }).lastBucketEmbedBytes).toBe(0);
    expect(work({ ...full, framework: 'deepspeed', zero: 2 }).lastBucketEmbedBytes).toBe(0);
  });

  it("is a part of the step's gradient all-reduce on every rank count and length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 16 }),
        fc.constantFrom(512, 2048, 4096),
        (gpus, seq) => {
          const o: EstimateOptions = {
            ...defaultOptions('full'),
            framework: 'hf',
            gpus,
            zero: 0,
            seq,
          };
          const w = work(o);
          expect(w.lastBucketEmbedBytes).toBeGreaterThan(0);
          expect(w.lastBucketEmbedBytes).toBeLessThanOrEqual(w.gradReduceBytes);
        },
      ),
      { numRuns: 20 },
    );
  });
});
