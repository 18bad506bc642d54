/**
 * torchtitan's `expert_parallel` wrapper before pytorch/torchtitan#1854 (torchtitan/distributed/expert_parallel.py at
 * pytorch/torchtitan@a1fdd7e, the torchtitan prime-rl's trainer pinned at PrimeIntellect-ai/prime-rl@8718eb14, @b798a90d
 * and @bd087277) pads each expert's routed rows to 8 for torch._grouped_mm even at expert-parallel degree 1: a vstack of
 * the routed rows and a zero row, a gather into R + E x 8 rows and an index_put back. Eager 6 hidden-wide passes a routed
 * row, compiled 4, plus the padding rows (engines/torchtitan/memory.ts `alignPermute`, time/grouped-mm.ts
 * alignPermuteBytes). A build says so (TimeOptions.alignPermute, a row's `moe_permute: "align-wrapper"`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { alignPermuteBytes, groupedRowBytes } from '../../src/core/time/grouped-mm.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// prime-rl's SFT benchmark of Qwen3-30B-A3B (calibration row primerl-sft-qwen3-30b-a3b-8xh200-s16384's settings):
// FSDP2 over 8 GPUs, one 16,384-token row a micro-batch, full recompute, each block compiled.
const PRIMERL_SFT_FLAGS = {
  weights: 'fp32',
  batch: 1,
  'grad-accum': 2,
  seq: 16384,
  checkpointing: 'full',
  attention: 'flash',
  zero: 3,
  gpus: 8,
  gpu: 'h200-sxm',
  framework: 'torchtitan',
  compile: true,
} as const;

describe("torchtitan's alignment permute around the grouped experts (expert_parallel at a1fdd7e)", () => {
  const m = modelFacts(resolveModel('qwen3-30b-a3b'));
  const o = optionsFromFlags({ ...PRIMERL_SFT_FLAGS });

  it('moves 6 passes a routed row eager, 4 compiled, and two over each expert’s 8 padding rows', () => {
    const eager = alignPermuteBytes(m, o, 16384, m.moeLayers, false);
    expect(eager).toBe((6 * 16384 * m.topK + 2 * m.experts * 8) * m.hidden * 2 * m.moeLayers);
    const compiled = alignPermuteBytes(m, o, 16384, m.moeLayers, true);
    expect(compiled).toBe((4 * 16384 * m.topK + 2 * m.experts * 8) * m.hidden * 2 * m.moeLayers);
    // 48 layers x (4 x 16,384 x 8 + 2 x 128 x 8) rows x 2,048 x 2 bytes: about 103 GB a compiled forward.
    expect(compiled / 1e9).toBeCloseTo(103.3, 0);
  });

  it("joins the grouped experts' row traffic only where the build says so, and only on grouped experts", () => {
    const base = groupedRowBytes(m, o, 16384, m.layers, true, true);
    const wrapped = groupedRowBytes(m, o, 16384, m.layers, true, true, true);
    expect(wrapped - base).toBe(alignPermuteBytes(m, o, 16384, m.moeLayers, true));
    expect(groupedRowBytes(m, o, 16384, m.layers, false, true, true)).toBe(0);
    // An engine whose profile has no such wrapper (transformers 5's grouped experts) moves nothing more.
    const hf = optionsFromFlags({ ...PRIMERL_SFT_FLAGS, framework: 'hf-fsdp' });
    expect(groupedRowBytes(m, hf, 16384, m.layers, true, false, true)).toBe(
      groupedRowBytes(m, hf, 16384, m.layers, true, false),
    );
    // A dense model has no experts to permute.
    const dense = modelFacts(resolveModel('qwen3-8b'));
    expect(alignPermuteBytes(dense, o, 16384, dense.layers, true)).toBe(0);
  });

  it('slows the prime-rl SFT step of Qwen3-30B-A3B on an H200 (TimeOptions.alignPermute)', () => {
    const t = defaultTimeOptions(8);
    const h200 = gpuRates(findGpu('h200-sxm'), t);
    const plain = trainStep(trainWork(m, o, t), h200);
    const wrapped = trainStep(trainWork(m, o, { ...t, alignPermute: true }), h200);
    // About 103 GB in forward, again in the recompute and twice in backward (412 GB) at the H200's 4.08 TB/s the
    // model reads: 0.10 s on one micro-batch.
    expect(wrapped - plain).toBeGreaterThan(0.08);
    expect(wrapped - plain).toBeLessThan(0.12);
  });

  it('never makes a step faster, and costs more with more tokens or more experts a token (fast-check)', () => {
    const t = defaultTimeOptions(1);
    const h100 = gpuRates(findGpu('h100-sxm'), t);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        (batch, kiloTokens, topK) => {
          const oo = optionsFromFlags({ ...PRIMERL_SFT_FLAGS, batch, seq: 1024 * kiloTokens });
          const mm = { ...m, topK };
          const tokens = batch * 1024 * kiloTokens;
          const here = alignPermuteBytes(mm, oo, tokens, mm.moeLayers, true);
          expect(alignPermuteBytes(mm, oo, tokens + 1024, mm.moeLayers, true)).toBeGreaterThan(
            here,
          );
          const more = { ...mm, topK: topK + 1 };
          expect(alignPermuteBytes(more, oo, tokens, more.moeLayers, true)).toBeGreaterThan(here);
          const w0 = trainWork(mm, oo, t);
          const w1 = trainWork(mm, oo, { ...t, alignPermute: true });
          expect(trainStep(w1, h100)).toBeGreaterThanOrEqual(trainStep(w0, h100));
        },
      ),
      { numRuns: 25 },
    );
  });
});
