/**
 * Context-parallel ranks join the ZeRO / FSDP group: they hold gradients of the same weights from different tokens of
 * the sequence, so the engines shard and reduce over the data-parallel ranks times the context-parallel ones
 * (torchtitan's `dp_shard_cp` mesh, parallelize_llama.py at pytorch/torchtitan@9dec370; Accelerate 1.15.0
 * ParallelismConfig.fsdp_dim_names). The step's gathers, gradient reduce-scatters, FSDP2 copies and sharded optimizer
 * step follow that group (time/train-work.ts WorkLayout.zeroRanks), whatever split of it is cp.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

describe('the ZeRO / FSDP group of a context-parallel run', () => {
  const m = modelFacts(resolveModel('meta-llama/Llama-3.1-8B'));
  const t = defaultTimeOptions(8);
  const flags = {
    method: 'full',
    weights: 'fp32',
    batch: 1,
    seq: 65536,
    checkpointing: 'full',
    zero: 3,
    gpus: 8,
    gpu: 'h100-sxm',
    framework: 'torchtitan',
  } as const;

  it('cp 8 on 8 GPUs gathers, reduces and steps the optimizer over all 8 ranks, as dp 8 does', () => {
    const cp = trainWork(m, optionsFromFlags({ ...flags, cp: 8 }), t);
    const dp = trainWork(m, optionsFromFlags({ ...flags, seq: 8192 }), t);
    expect(cp.dp).toBe(1);
    expect(cp.zeroRanks).toBe(8);
    expect(cp.gatherPassBytes).toBeGreaterThan(0);
    expect(cp.gatherPassBytes).toBeCloseTo(dp.gatherPassBytes, 0);
    expect(cp.gradReduceBytes).toBeCloseTo(dp.gradReduceBytes, 0);
    expect(cp.fsdpCopyGatherBytes).toBeCloseTo(dp.fsdpCopyGatherBytes, 0);
    expect(cp.optimizerBytes).toBeCloseTo(dp.optimizerBytes, 0);
  });

  it('any split of the group into dp x cp moves the same parameter bytes a rank', () => {
    const splits = [1, 2, 4, 8];
    fc.assert(
      fc.property(fc.constantFrom(...splits), fc.constantFrom(...splits), (cp, gpus) => {
        fc.pre(cp <= gpus);
        const w = trainWork(m, optionsFromFlags({ ...flags, gpus, cp, seq: 8192 * cp }), t);
        const ref = trainWork(m, optionsFromFlags({ ...flags, gpus, seq: 8192 }), t);
        expect(w.zeroRanks).toBe(gpus);
        expect(w.gatherPassBytes).toBeCloseTo(ref.gatherPassBytes, 0);
        expect(w.gradReduceBytes).toBeCloseTo(ref.gradReduceBytes, 0);
      }),
    );
  });
});
