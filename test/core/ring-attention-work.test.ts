/**
 * torch's ring attention around a context-parallel rank's attention (time/train-ring-attention.ts, read at
 * pytorch/pytorch@0123248a torch/distributed/tensor/experimental/_attention.py): fp32 merges of each later block's
 * output, fp32 gradient accumulators, a K/V all-gather that hides behind the first block only, and the backward's
 * dk/dv sends, the last one waited on with nothing after it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { ringExchangeBytes, ringExposedSeconds } from '../../src/core/time/train-ring-attention.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('meta-llama/Llama-3.1-8B'));
const t = defaultTimeOptions(8);
const flags = {
  method: 'full',
  weights: 'fp32',
  batch: 1,
  checkpointing: 'full',
  zero: 3,
  gpus: 8,
  gpu: 'h100-sxm',
} as const;
const ring = (over: Record<string, unknown>) =>
  trainWork(m, optionsFromFlags({ ...flags, framework: 'torchtitan', seq: 65536, ...over }), t)
    .ring;

describe("torch's ring attention around a context-parallel rank", () => {
  it('runs no ring without context parallelism, nor on the Ulysses engine', () => {
    expect(ring({ cp: 1 }).fwdBytes).toBe(0);
    const ulysses = trainWork(
      m,
      optionsFromFlags({ ...flags, framework: 'hf-deepspeed', seq: 65536, cp: 8 }),
      t,
    );
    expect(ulysses.ring.group).toBe(1);
    expect(ulysses.sp.bytes).toBeGreaterThan(0);
  });

  it('merges each later block in fp32: eager 38 B an element of q a block, compiled 10', () => {
    const eager = ring({ cp: 8 });
    const compiled = ring({ cp: 8, compile: true });
    const eq = (65536 / 8) * m.attnWidth * m.attnLayers;
    // The last rank's 7 whole-q merges and the two casts (12 B), less the K/V concatenations (torchtitan repeats the
    // k/v heads to the query's before SDPA: q-wide K/V).
    const kv = (2 * (65536 / 8) * m.attnWidth * m.attnLayers * 2 * 2) / eq;
    expect(eager.fwdBytes / eq).toBeCloseTo(12 + 7 * 38 + 7 * kv, 6);
    expect(compiled.fwdBytes / eq).toBeCloseTo(12 + 7 * 10 + kv, 6);
    expect(eager.fwdPasses).toBe(2); // the forward and full checkpointing's recompute
  });

  it("a rank's ring traffic grows with the blocks it merges, the same tokens a rank", () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.boolean(), (cp, compile) => {
        const a = ring({ cp, seq: 8192 * cp, compile });
        const b = ring({ cp: cp * 2, seq: 8192 * cp * 2, gpus: 16, compile });
        expect(b.fwdBytes).toBeGreaterThan(a.fwdBytes);
        expect(b.bwdBytes).toBeGreaterThan(a.bwdBytes);
        // The K/V all-gather brings the other ranks' shards: (cp - 1) of the rank's own.
        expect(b.gatherBytes / a.gatherBytes).toBeCloseTo((2 * cp - 1) / (cp - 1), 9);
      }),
    );
  });

  it("exchanges K/V at the width SDPA receives them: torchtitan's repeated heads, the k/v heads elsewhere", () => {
    // torchtitan at pytorch/torchtitan@9dec370 models/llama/model.py: repeat_kv(xk, n_rep) before
    // F.scaled_dot_product_attention, so the ring gathers and sends heads / kv heads (32 / 8) times the k/v heads' bytes.
    const sdpa = ring({ cp: 8, attention: 'sdpa' });
    const layers = m.attnLayers;
    expect(sdpa.gatherBytes).toBeCloseTo(layers * 7 * 2 * (65536 / 8) * m.attnWidth * 2, 0);
    expect(sdpa.sendBytes).toBeCloseTo(layers * 2 * (65536 / 8) * m.attnWidth * 4, 0);
    expect(m.attnWidth / m.kvWidth).toBe(4);
    const own = trainWork(
      m,
      optionsFromFlags({ ...flags, framework: 'hf', seq: 65536, cp: 8, attention: 'flash' }),
      t,
    ).ring;
    expect(own.gatherBytes).toBeCloseTo(layers * 7 * 2 * (65536 / 8) * m.kvWidth * 2, 0);
    // transformers' SDPA without a mask passes enable_gqa=True instead of repeat_kv (use_gqa_in_sdpa).
    const gqa = trainWork(
      m,
      optionsFromFlags({ ...flags, framework: 'hf-fsdp', seq: 65536, cp: 8, attention: 'sdpa' }),
      t,
    ).ring;
    expect(gqa.gatherBytes).toBeCloseTo(own.gatherBytes, 0);
  });

  it('more context parallelism never lowers the bytes a GPU exchanges, at a fixed sequence', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(8192, 32768, 131072),
        fc.constantFrom('sdpa', 'flash'),
        fc.boolean(),
        (cp, seq, attention, compile) => {
          const framework = attention === 'flash' ? 'hf' : 'torchtitan';
          const at = (c: number) =>
            ringExchangeBytes(
              trainWork(
                m,
                optionsFromFlags({ ...flags, framework, seq, cp: c, attention, compile, gpus: 16 }),
                t,
              ).ring,
            );
          expect(at(cp * 2)).toBeGreaterThanOrEqual(at(cp));
        },
      ),
    );
  });

  it('hides the K/V gathers behind the first block where it is long, and never the last dk/dv send', () => {
    const r = ring({ cp: 8 });
    const link = 300e9;
    const tail = r.sendBytes / link + r.layers * 25e-6;
    expect(ringExposedSeconds(r, 10, 20, link, 25e-6)).toBeCloseTo(tail, 12);
    // Across nodes at a short sequence the gathers outlast the first block.
    const slow = ringExposedSeconds(r, 1e-3, 2e-3, 10e9, 25e-6);
    expect(slow).toBeGreaterThan(tail * 30);
  });
});
