/**
 * DeepSpeed's ZeRO-2 gradient buckets as stage_1_and_2.py reduces them (FrameworkProfile.zero2BucketReduce,
 * time/zero2-bucket-reduce.ts; deepspeedai/DeepSpeed v0.14.2 and v0.19.5): every bucket all-reduced (2(n - 1)/n of it on
 * the wire a rank, where a reduce-scatter moves (n - 1)/n), each gradient copied into its bucket by its hook on the
 * compute stream, and the bucket divided in place, flattened and this rank's slices copied back and into its partition
 * on the reduce's stream.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('llama-2-7b'));
// chenyaofo's gist rows' shape: Llama-2-7B full fine-tune at 4,096 tokens (calibration/throughput.json chenyaofo-*).
const flags = (framework: string, zero: number, gpus: number) =>
  optionsFromFlags({
    method: 'full',
    batch: 1,
    seq: 4096,
    checkpointing: 'full',
    zero,
    gpus,
    gpu: 'a800-80gb-sxm',
    framework,
  });

describe("DeepSpeed's ZeRO-2 gradient buckets (zero2BucketReduce)", () => {
  const t = defaultTimeOptions(8);

  it("is DeepSpeed's: an all-reduce, one copy in the hooks, four bucket passes and two copies of the own slice", () => {
    expect(FRAMEWORKS[flags('hf-deepspeed', 2, 8).framework].zero2BucketReduce).toEqual({
      allReduce: true,
      hookCopyPasses: 2,
      bucketPasses: 4,
      ownSlicePasses: 4,
    });
    expect(FRAMEWORKS[flags('hf-fsdp', 2, 8).framework].zero2BucketReduce).toBeUndefined();
  });

  it('moves twice a reduce-scatter on the wire, and the passes over the bf16 gradients, every micro-batch', () => {
    for (const n of [2, 8, 32]) {
      const ds = trainWork(m, flags('hf-deepspeed', 2, n), t);
      const grad = m.total * 2; // bf16 gradients of every weight, unsharded
      expect(ds.gradReducePerMicro).toBe(true);
      expect(ds.gradReduceBytes / (grad * ((n - 1) / n))).toBeCloseTo(2, 6);
      expect(ds.gradHookCopyBytes / grad).toBeCloseTo(2, 6);
      expect(ds.gradDivideBytes / grad).toBeCloseTo(4 + 4 / n, 6);
      // ZeRO-3's reduce-scatter (stage3.py reduce_scatter_coalesced) and FSDP's SHARD_GRAD_OP stay a reduce-scatter.
      const z3 = trainWork(m, flags('hf-deepspeed', 3, n), t);
      expect(z3.gradReduceBytes / (grad * ((n - 1) / n))).toBeCloseTo(1, 6);
      expect(z3.gradHookCopyBytes).toBe(0);
      const fsdp = trainWork(m, flags('hf-fsdp', 2, n), t);
      expect(fsdp.gradHookCopyBytes).toBe(0);
      expect(fsdp.gradReduceBytes).toBeLessThan(ds.gradReduceBytes);
    }
  });

  it('adds nothing on one GPU, where nothing is reduced', () => {
    const one = trainWork(m, flags('hf-deepspeed', 2, 1), t);
    expect(one.gradReduceBytes).toBe(0);
    expect(one.gradHookCopyBytes).toBe(0);
    expect(one.gradDivideBytes).toBe(0);
  });

  it('never shortens a step: without the all-reduce and the passes the same step is no longer', () => {
    const r = gpuRates(findGpu('a800-80gb-sxm'), t);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 64 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(1024, 2048, 4096, 8192),
        fc.constantFrom('none', 'full'),
        fc.integer({ min: 1, max: 16 }),
        (gpus, batch, seq, checkpointing, accum) => {
          const o = optionsFromFlags({
            method: 'full',
            batch,
            seq,
            checkpointing,
            zero: 2,
            gpus,
            gpu: 'a800-80gb-sxm',
            framework: 'hf-deepspeed',
          });
          const w = trainWork(m, o, defaultTimeOptions(accum));
          const plain = {
            ...w,
            gradReduceBytes: w.gradReduceBytes / 2,
            gradDivideBytes: 0,
            gradHookCopyBytes: 0,
          };
          expect(trainStep(w, r)).toBeGreaterThan(trainStep(plain, r));
        },
      ),
      { numRuns: 60 },
    );
  });
});
