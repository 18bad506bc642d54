/**
 * unsloth_zoo's offloaded checkpoints before its double buffering (unslothai/unsloth-zoo#534): backward copies each
 * offloaded layer input back on a side stream that first waits for the compute stream, into one shared GPU buffer
 * the recompute waits for, so the reloads run in series with the backward (TimeOptions.offloadReloadSerial,
 * time/offload-work.ts serialReloadBytes). A layer input of 2 MiB or less stays on the GPU, and so does the last
 * layer's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// noamshh/unsloth-lora-bench's Unsloth arm: Qwen2.5-3B LoRA r 32 on all linears, fp16, batch 32, offloaded checkpoints.
const UNSLOTH_LORA_BENCH_RUN = (seq: number, extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'lora',
    weights: 'fp16',
    compute: 'fp16',
    'lora-rank': 32,
    'lora-targets': 'q,k,v,o,gate,up,down',
    batch: 32,
    seq,
    checkpointing: 'offload',
    gpu: 'a100-80gb-sxm',
    framework: 'unsloth',
    ...extra,
  });

describe('offloaded checkpoints reloaded in series with the backward (offloadReloadSerial)', () => {
  const m = modelFacts(resolveModel('qwen2.5-3b'));
  const t = defaultTimeOptions(1);
  const serialT = { ...t, offloadReloadSerial: true };
  const r = gpuRates(findGpu('a100-80gb-sxm')!, t);

  it('copies every offloaded layer input but the last, one 16-bit hidden state a token', () => {
    const w = trainWork(m, UNSLOTH_LORA_BENCH_RUN(64), serialT);
    expect(w.offloadActSerialBytes).toBe(32 * 64 * m.hidden * 2 * (m.layers - 1));
    expect(trainWork(m, UNSLOTH_LORA_BENCH_RUN(64), t).offloadActSerialBytes).toBe(0);
    expect(
      trainWork(m, UNSLOTH_LORA_BENCH_RUN(64, { checkpointing: 'full' }), serialT)
        .offloadActSerialBytes,
    ).toBe(0);
    // One sample of 256 tokens: 256 x 2,048 x 2 B = 1 MiB a layer, under the 2 MiB floor: nothing offloaded.
    expect(
      trainWork(m, UNSLOTH_LORA_BENCH_RUN(256, { batch: 1 }), serialT).offloadActSerialBytes,
    ).toBe(0);
  });

  it('adds the copies whole at the host link rate, in the offload phase', () => {
    const w = trainWork(m, UNSLOTH_LORA_BENCH_RUN(64), serialT);
    const overlapped = trainWork(m, UNSLOTH_LORA_BENCH_RUN(64), t);
    const phases = new Float64Array(16);
    const phasesOverlapped = new Float64Array(16);
    const extra = w.offloadActSerialBytes / r.host;
    expect(extra).toBeGreaterThan(0);
    expect(trainStep(w, r, phases) - trainStep(overlapped, r, phasesOverlapped)).toBeCloseTo(
      extra,
      9,
    );
    const off = TRAIN_PHASES.indexOf('offload');
    expect(phases[off]! - phasesOverlapped[off]!).toBeCloseTo(extra, 9);
  });

  it('never makes a step faster, and grows with the tokens', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 6, max: 12 }), (batch, p) => {
        const seq = 1 << p;
        const a = trainStep(trainWork(m, UNSLOTH_LORA_BENCH_RUN(seq, { batch }), serialT), r);
        const b = trainStep(trainWork(m, UNSLOTH_LORA_BENCH_RUN(seq, { batch }), t), r);
        expect(a).toBeGreaterThanOrEqual(b);
        const longer = trainWork(m, UNSLOTH_LORA_BENCH_RUN(seq * 2, { batch }), serialT);
        const shorter = trainWork(m, UNSLOTH_LORA_BENCH_RUN(seq, { batch }), serialT);
        expect(longer.offloadActSerialBytes).toBeGreaterThanOrEqual(shorter.offloadActSerialBytes);
      }),
      { numRuns: 40 },
    );
  });
});
