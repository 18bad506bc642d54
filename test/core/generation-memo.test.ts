// policyMemo's rollout generations (memory.ts generationKey): a generation estimate shared between trainer
// options that differ only in what an inference estimate never reads equals the one made on its own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { policyMemo } from '../../src/core/memory/index.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsArb } from '../helpers/arbitraries.js';

// A model Liger patches (qwen2), one it patches without its fused MLP (gpt_oss), a vision-language model (its
// tower) and one Liger leaves alone (gpt_neox).
const ARCHS = ['qwen2.5-7b', 'gpt-oss-20b', 'qwen2-vl-7b-instruct', 'stablelm-base-alpha-3b'].map(
  (m) => resolveModel(m),
);

/** The generation objective.ts rolloutBytes asks for on a trainer's options `po`. */
const generation = (
  po: EstimateOptions,
  g: Pick<EstimateOptions, 'weights' | 'batch' | 'gpus' | 'zero' | 'offload'>,
): EstimateOptions => ({ ...po, method: 'inference', optimizer: 'none', ...g });

const CHECKPOINTING = ['none', 'selective', 'full', 'offload'] as const;

/**
 * `o` with another Liger flag, trainer and sharding (none of which a generation reads), and another checkpointing
 * and attention (which it reads as whether checkpointing is 'offload' and whether attention is eager).
 */
const twinArb = () =>
  fc.record({
    liger: fc.boolean(),
    method: fc.constantFrom('full' as const, 'lora' as const, 'qlora' as const),
    optimizer: fc.constantFrom('adamw' as const, 'adamw-8bit' as const, 'paged-adamw' as const),
    zero: fc.constantFrom(0 as const, 2 as const, 3 as const),
    offload: fc.constantFrom('none' as const, 'optimizer' as const),
    checkpointing: fc.constantFrom(...CHECKPOINTING),
    attention: fc.constantFrom('flash' as const, 'sdpa' as const, 'eager' as const),
  });

describe('policyMemo: rollout generations shared across trainer options', () => {
  it('give the estimate made on its own, shared where the trainers differ only in what a generation does not read', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ARCHS.keys()),
        optionsArb({ methods: ['full', 'lora', 'qlora'], maxSeq: 4096, maxBatch: 16 }).chain((o) =>
          fc.tuple(
            fc.constant(o),
            twinArb(),
            fc.boolean(),
            fc.record({
              batch: fc.integer({ min: 1, max: 64 }),
              gpus: fc.constantFrom(1, 2, 4),
              zero: fc.constantFrom(0 as const, o.zero),
              offload: fc.constantFrom('none' as const, o.offload),
            }),
          ),
        ),
        fc.boolean(),
        (ai, [o, twin, liger, g], lean) => {
          const arch = ARCHS[ai]!;
          const a: EstimateOptions = { ...o, liger };
          const b: EstimateOptions = { ...o, ...twin };
          const gen = { ...g, weights: o.weights };
          const ctx = { lean };
          const shared = policyMemo(arch);
          // The twin's generation first (the memo keeps it), then `a`'s, which it may answer from the twin's.
          const first = shared(b)(arch, generation(b, gen), ctx);
          const answered = shared(a)(arch, generation(a, gen), ctx);
          const own = policyMemo(arch)(a)(arch, generation(a, gen), ctx);
          expect(answered).toEqual(own);
          // Trainer options that differ only in what a generation does not read share one: the twin's.
          const reads = (x: EstimateOptions) =>
            [x.checkpointing === 'offload', x.attention === 'eager'].join();
          if (reads(a) === reads(b)) expect(answered).toBe(first);
          else expect(answered).not.toBe(first);
        },
      ),
      { numRuns: 150 },
    );
  });
});
