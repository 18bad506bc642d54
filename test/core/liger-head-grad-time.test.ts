/**
 * Liger's fused linear cross-entropy with a trained output layer accumulates each chunk's V x H weight gradient in
 * the loss's forward (ops/fused_linear_cross_entropy.py): that traffic is timed once a micro-batch, in the forward,
 * never in the backward (which hands the saved gradients on) nor in the recompute (checkpointing re-runs the
 * decoder layers, not the loss): TrainWork.lossHeadGradBytes.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const run = (extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'full',
    weights: 'bf16',
    'optimizer-states': 'bf16',
    batch: 8,
    seq: 4096,
    checkpointing: 'full',
    attention: 'flash',
    gpu: 'h100-sxm',
    framework: 'hf',
    liger: true,
    ...extra,
  });

describe("Liger's output-layer gradient accumulation (lossHeadGradBytes)", () => {
  const m = modelFacts(resolveModel('llama-3.1-8b'));
  const t = defaultTimeOptions(1);
  const r = gpuRates(findGpu('h100-sxm')!, t);

  it('is counted for a full fine-tune with Liger, apart from the elementwise traffic the backward repeats', () => {
    const liger = trainWork(m, run(), t);
    // 32,768 rows, V 128,256 / H 4,096 -> 32 rows a chunk step, chunks of 1,024: 32 chunks of V x H at 14 B.
    expect(liger.lossHeadGradBytes).toBeCloseTo(32 * 128256 * 4096 * 14, -3);
    const lora = trainWork(m, run({ method: 'lora', 'optimizer-states': 'fp32' }), t);
    expect(lora.lossHeadGradBytes).toBe(0);
    expect(trainWork(m, run({ liger: false }), t).lossHeadGradBytes).toBe(0);
  });

  it('adds its bytes once a micro-batch, in the forward, with or without checkpointing', () => {
    for (const checkpointing of ['full', 'none'] as const) {
      const w = trainWork(m, run({ checkpointing }), t);
      const without = { ...w, lossHeadGradBytes: 0 };
      const phases = new Float64Array(16);
      const phasesWithout = new Float64Array(16);
      const step = trainStep(w, r, phases);
      const stepWithout = trainStep(without, r, phasesWithout);
      expect(step - stepWithout, checkpointing).toBeCloseTo(w.lossHeadGradBytes / r.mem, 6);
      expect(phases[0]! - phasesWithout[0]!, checkpointing).toBeCloseTo(
        w.lossHeadGradBytes / r.mem,
        6,
      );
    }
  });
});
