/**
 * Context parallelism splits a sequence's tokens over cp ranks, but attention still relates every query to every
 * earlier key: ring attention rotates each rank's K/V shard round the ring and runs one block a hop
 * (pytorch/pytorch v2.7.0 torch/distributed/tensor/experimental/_attention.py `_templated_ring_attention`), so a rank
 * computes its seq / cp queries against all seq keys. Its attention FLOPs are 1 / cp of the whole sequence's, not
 * 1 / cp^2 of them, while its matmul FLOPs are 1 / cp of the sequence's.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

describe('attention FLOPs of a context-parallel rank', () => {
  const m = modelFacts(resolveModel('Qwen/Qwen3-8B'));
  const t = defaultTimeOptions(1);
  const flags = {
    method: 'full',
    batch: 1,
    seq: 131072,
    attention: 'sdpa',
    zero: 3,
    gpus: 8,
    gpu: 'h100-sxm',
    framework: 'hf-fsdp',
  } as const;

  it('a rank of cp 8 runs 1/8 of the whole sequence attention, as its matmuls are 1/8 of the whole', () => {
    const whole = trainWork(m, optionsFromFlags({ ...flags, gpus: 1 }), t);
    const rank = trainWork(m, optionsFromFlags({ ...flags, cp: 8 }), t);
    expect(rank.fwdAttnFlops / whole.fwdAttnFlops).toBeCloseTo(1 / 8, 9);
    expect(rank.fwdGemmFlops / whole.fwdGemmFlops).toBeCloseTo(1 / 8, 9);
    // The causal forward: 4 x (seq / cp) x seq x attention width x layers, half of it skipped.
    expect(rank.fwdAttnFlops).toBeCloseTo(
      (4 * (131072 / 8) * 131072 * m.attnWidth * m.layers * (m.attnLayers / m.layers)) / 2,
      -6,
    );
  });
});
