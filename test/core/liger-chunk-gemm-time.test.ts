/**
 * Liger's fused linear cross-entropy multiplies the output layer chunk by chunk (ops/fused_linear_cross_entropy.py:
 * `_input_chunk @ weight.t()` and `grad_logits_chunk @ weight` for each ligerChunkRows-row chunk), which Liger's own
 * kernel benchmark times slower than one GEMM over all the rows (kernels/liger.ts ligerChunkGemmSlowdown). The
 * extra GEMM work is timed once a micro-batch, in the forward: TrainWork.lossChunkExtraFlops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { ligerChunkGemmSlowdown, ligerChunkRows } from '../../src/core/kernels/liger.js';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// MakazhanAlpamys/Soup#378's Liger arm: Llama-3.1-8B LoRA r 16 on q and v, batch 4 x 1,024, one H100.
const SOUP378_LIGER_RUN = (extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'lora',
    'lora-rank': 16,
    'lora-targets': 'q,v',
    batch: 4,
    seq: 1024,
    checkpointing: 'none',
    attention: 'sdpa',
    gpu: 'h100-sxm',
    framework: 'hf',
    liger: true,
    ...extra,
  });

describe("Liger's chunked output-layer GEMMs (ligerChunkGemmSlowdown)", () => {
  it("takes the benchmark's factors at its chunk sizes and holds them past the ends", () => {
    expect(ligerChunkGemmSlowdown(128)).toBe(2.12);
    expect(ligerChunkGemmSlowdown(256)).toBe(1.41);
    expect(ligerChunkGemmSlowdown(512)).toBe(1.16);
    expect(ligerChunkGemmSlowdown(1024)).toBe(1.03);
    expect(ligerChunkGemmSlowdown(32)).toBe(2.12);
    expect(ligerChunkGemmSlowdown(8192)).toBe(1);
  });

  it('never speeds a GEMM up and slows it less as the chunk grows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1 << 20 }),
        fc.integer({ min: 1, max: 1 << 20 }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(ligerChunkGemmSlowdown(lo)).toBeGreaterThanOrEqual(ligerChunkGemmSlowdown(hi));
          expect(ligerChunkGemmSlowdown(hi)).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});

describe("Liger's chunked output layer in the training step (lossChunkExtraFlops)", () => {
  const m = modelFacts(resolveModel('llama-3.1-8b'));
  const t = defaultTimeOptions(1);
  const r = gpuRates(findGpu('h100-sxm')!, t);

  it("prices the head's forward and input-gradient GEMMs at the chunk's factor", () => {
    const w = trainWork(m, SOUP378_LIGER_RUN(), t);
    // 4,096 rows, V 128,256 / H 4,096 -> inc_factor 32, chunks of next_power_of_2(128) = 128 rows: 2.12.
    expect(ligerChunkRows(4096, 128256, 4096)).toBe(128);
    expect(w.lossChunkExtraFlops).toBeCloseTo(4 * 4096 * m.lmHead * 1.12, -6);
    expect(trainWork(m, SOUP378_LIGER_RUN({ liger: false }), t).lossChunkExtraFlops).toBe(0);
    expect(
      trainWork(m, SOUP378_LIGER_RUN(), { ...t, trainerReadsLogits: true }).lossChunkExtraFlops,
    ).toBe(0);
    // 16 x 4,096 rows: chunks of 2,048, one long GEMM.
    expect(trainWork(m, SOUP378_LIGER_RUN({ batch: 16, seq: 4096 }), t).lossChunkExtraFlops).toBe(
      0,
    );
  });

  it('adds its seconds once a micro-batch, in the forward, with or without checkpointing', () => {
    for (const checkpointing of ['full', 'none'] as const) {
      const w = trainWork(m, SOUP378_LIGER_RUN({ checkpointing }), t);
      const without = { ...w, lossChunkExtraFlops: 0 };
      const phases = new Float64Array(16);
      const phasesWithout = new Float64Array(16);
      const extra = w.lossChunkExtraFlops / (r.gemm16 * w.shape);
      expect(extra, checkpointing).toBeGreaterThan(0);
      expect(
        trainStep(w, r, phases) - trainStep(without, r, phasesWithout),
        checkpointing,
      ).toBeCloseTo(extra, 6);
      expect(phases[0]! - phasesWithout[0]!, checkpointing).toBeCloseTo(extra, 6);
    }
  });
});
