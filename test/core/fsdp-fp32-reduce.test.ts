/**
 * FSDP1 with a MixedPrecision reduce_dtype of float32 over bf16 parameters (TimeOptions.fsdpReduceFp32): each unit's
 * post-backward hook casts the unsharded bf16 gradient to float32 on the post-backward stream and reduce-scatters it at
 * 4 bytes an element (torch/distributed/fsdp/_runtime_utils.py `_post_backward_hook` at
 * pytorch/pytorch@00ae0bc91ac2c1718d1baa193d9d299e2b82776c); YaFSDP's FSDP baseline ran it (its run_clm patch).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { fp32ReduceCastBytes } from '../../src/core/time/train-comm-work.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const a100 = findGpu('a100-80gb-sxm');
// YaFSDP's FSDP arm: Llama 2 7B full, fp32 weights under bf16 compute, FULL_SHARD over 64 ranks, 2,048 tokens a rank.
const flags = (gpus: number, compute: RawFlags['compute'] = 'bf16'): RawFlags => ({
  method: 'full',
  weights: 'fp32',
  compute,
  batch: 1,
  seq: 2048,
  attention: 'flash',
  zero: 3,
  gpus,
  'gpus-per-node': 8,
  gpu: 'a100-80gb-sxm',
  framework: 'hf-fsdp',
  checkpointing: 'none',
});

describe("FSDP1's float32 gradient reduce", () => {
  const m = modelFacts(resolveModel('meta-llama/Llama-2-7b-hf'));

  it('reduce-scatters twice the bytes of the bf16 reduce, and casts the unsharded gradient on the reduce stream', () => {
    const o = optionsFromFlags(flags(64));
    const t = { ...defaultTimeOptions(64), fsdp2: false };
    const bf16 = trainWork(m, o, t);
    const fp32 = trainWork(m, o, { ...t, fsdpReduceFp32: true });
    expect(bf16.gradReduceBytes).toBeGreaterThan(0);
    expect(fp32.gradReduceBytes).toBeCloseTo(2 * bf16.gradReduceBytes, -3);
    expect(fp32.gradDivideBytes).toBeGreaterThan(bf16.gradDivideBytes);
    // The gathers do not change: parameters still travel at param_dtype.
    expect(fp32.gatherBytes).toBe(bf16.gatherBytes);
  });

  it('makes no step faster, and leaves a one-GPU run, an unsharded run and fp32 compute as they were', () => {
    const t = { ...defaultTimeOptions(64), fsdp2: false };
    const o = optionsFromFlags(flags(64));
    const r = gpuRates(a100, t);
    const a = new Float64Array(TRAIN_PHASES.length);
    const b = new Float64Array(TRAIN_PHASES.length);
    expect(trainStep(trainWork(m, o, { ...t, fsdpReduceFp32: true }), r, a)).toBeGreaterThanOrEqual(
      trainStep(trainWork(m, o, t), r, b),
    );
    for (const held of [
      optionsFromFlags(flags(1)),
      optionsFromFlags({ ...flags(8), zero: 0 }),
      optionsFromFlags(flags(8, 'fp32')),
    ]) {
      const tt = { ...defaultTimeOptions(held.gpus), fsdp2: false };
      const x = trainWork(m, held, tt);
      const y = trainWork(m, held, { ...tt, fsdpReduceFp32: true });
      expect(y.gradReduceBytes).toBe(x.gradReduceBytes);
      expect(y.gradDivideBytes).toBe(x.gradDivideBytes);
    }
  });

  it('casts 6 bytes an unsharded element over more than one rank, none on one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e10 }),
        fc.integer({ min: 2, max: 1024 }),
        (n, ranks) => {
          expect(fp32ReduceCastBytes(n, ranks)).toBe(6 * n);
          expect(fp32ReduceCastBytes(n, 1)).toBe(0);
        },
      ),
    );
  });
});
