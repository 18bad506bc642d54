// A step's count-free work (time/train-work.ts countFreeWork) reads neither the GPU count nor grad-accum: made for
// one GPU count and grad-accum and handed to trainWork for another, the work is the one trainWork makes alone. The
// planner shares it between the rows of one configuration, engine variant, TP, PP, ZeRO stage and offload.
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { countFreeWork } from '../../src/core/time/train-work.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const base = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions(o.method ?? 'full'),
  batch: 2,
  seq: 2048,
  ...o,
});

// Dense and MoE models; full, LoRA and QLoRA; ZeRO stages with offload; paged optimizers; TP and PP; engines whose frameworks set
// different expert dispatch, fused kernels and reduce dtypes; a grouped-mm MoE with expert parallel.
const CASES: [string, EstimateOptions, Partial<TimeOptions>][] = [
  [
    'llama-2-13b',
    base({ method: 'full', zero: 3, framework: 'deepspeed', checkpointing: 'full' }),
    {},
  ],
  ['llama-2-13b', base({ method: 'full', zero: 1, offload: 'optimizer', framework: 'hf' }), {}],
  ['llama-2-13b', base({ method: 'lora', zero: 2, framework: 'deepspeed', liger: true }), {}],
  [
    'llama-2-13b',
    base({ method: 'qlora', weights: 'nf4', framework: 'unsloth', checkpointing: 'offload' }),
    { bnbTreeDequant: true, offloadReloadSerial: true },
  ],
  ['llama-2-13b', base({ method: 'full', tp: 2, pp: 2, framework: 'hf', zero: 0 }), {}],
  [
    'llama-2-13b',
    base({ method: 'full', optimizer: 'paged-adamw-8bit', zero: 1, framework: 'hf' }),
    {},
  ],
  ['llama-2-13b', base({ method: 'lora', optimizer: 'paged-adamw', zero: 0, framework: 'hf' }), {}],
  ['qwen3-30b-a3b', base({ method: 'full', zero: 3, framework: 'deepspeed' }), { moeLoop: true }],
  ['qwen3-30b-a3b', base({ method: 'lora', zero: 3, framework: 'hf', ep: 2 }), {}],
  ['qwen3-30b-a3b', base({ method: 'qlora', weights: 'nf4', framework: 'hf' }), {}],
];

describe('countFreeWork', () => {
  it.each(CASES)(
    '%s: shared across GPU counts and grad-accum, the work is trainWork’s own',
    (id, o, extra) => {
      const m = modelFacts(resolveModel(id));
      const shard = o.tp * o.pp;
      const time = (accum: number): TimeOptions => ({
        ...defaultTimeOptions(8),
        gradAccum: accum,
        ...extra,
      });
      const free = countFreeWork(m, { ...o, gpus: shard }, time(16));
      let compared = 0;
      for (const dp of [1, 2, 8, 32])
        for (const accum of [1, 4, 32]) {
          const ok = { ...o, gpus: shard * dp };
          const own = trainWork(m, ok, time(accum));
          expect(trainWork(m, ok, time(accum), undefined, undefined, free)).toEqual(own);
          compared++;
        }
      expect(compared).toBe(12);
    },
  );

  it('is not vacuous: the work of another micro-batch or layout differs', () => {
    const m = modelFacts(resolveModel('llama-2-13b'));
    const o = base({ method: 'full', zero: 3, framework: 'deepspeed', gpus: 8 });
    const t = { ...defaultTimeOptions(8), gradAccum: 4 };
    const wrong = countFreeWork(m, { ...o, batch: 4 }, t);
    expect(trainWork(m, o, t, undefined, undefined, wrong)).not.toEqual(trainWork(m, o, t));
  });
});
