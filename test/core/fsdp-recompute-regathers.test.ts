/**
 * torch FSDP's gathers per micro-batch under activation checkpointing at the unit's call site, and its gradient
 * division passes. Non-reentrant checkpointing recomputes inside backward after the unit's pre-backward hook set
 * BACKWARD_PRE (FSDP2: PRE_BACKWARD), where `_pre_forward` returns at once: two gathers a micro-batch, as without
 * checkpointing. A reentrant checkpoint runs the forward under no_grad, so no pre-backward hook is registered and the
 * recompute gathers the unit before the hook it registers gathers it again: three (torch/distributed/fsdp/
 * _runtime_utils.py, torch 2.4.1 and 2.11.0). FSDP1 divides the unsharded gradient before its reduce-scatter and the
 * shard after it in passes of their own (`_div_if_needed`); FSDP2 divides inside NCCL for a bf16 or fp32 reduce.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gradDivideBytes, predivideFactor } from '../../src/core/time/fsdp-grad-divide.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { trainStep } from '../../src/core/time/train-step.js';
import { trainWork } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 40);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261207);

const options = (
  framework: string,
  checkpointing: string,
  gpus: number,
  extra: Record<string, unknown> = {},
) =>
  optionsFromFlags({
    framework,
    method: 'full',
    zero: 3,
    gpus,
    batch: 1,
    seq: 2048,
    checkpointing,
    attention: 'flash',
    ...extra,
  });
const times = (gpus: number, extra: Partial<TimeOptions> = {}): TimeOptions => ({
  ...defaultTimeOptions(gpus),
  gpusPerNode: 8,
  ...extra,
});

describe("torch FSDP's gathers under call-site checkpointing", () => {
  const m = modelFacts(resolveModel('llama-3.1-8b'));

  it('gathers twice a micro-batch under non-reentrant checkpointing, three times under reentrant', () => {
    for (const fsdp2 of [false, true]) {
      const o = options('hf-fsdp', 'full', 8);
      const plain = trainWork(m, o, times(8, { fsdp2 }));
      const reentrant = trainWork(m, o, times(8, { fsdp2, reentrantCheckpoint: true }));
      const none = trainWork(m, options('hf-fsdp', 'none', 8), times(8, { fsdp2 }));
      expect(plain.gatherPassBytes).toBeGreaterThan(0);
      expect(plain.gatherBytes).toBeCloseTo(2 * plain.gatherPassBytes, 0);
      expect(plain.gatherBytes).toBeCloseTo(none.gatherBytes, 0);
      expect(reentrant.gatherBytes).toBeCloseTo(3 * plain.gatherPassBytes, 0);
    }
  });

  it("takes the engine's own reentrant checkpoint from its profile", () => {
    expect(FRAMEWORKS.unsloth.reentrantCheckpoint).toBe(true);
    expect(FRAMEWORKS.hf.reentrantCheckpoint).toBeUndefined();
    // A run's own setting overrides the profile.
    const o = options('hf-fsdp', 'full', 8);
    const off = trainWork(m, o, times(8, { reentrantCheckpoint: false }));
    expect(off.gatherBytes).toBeCloseTo(2 * off.gatherPassBytes, 0);
  });

  it('never gathers more, nor takes longer, under non-reentrant checkpointing than under reentrant (properties)', () => {
    const gpus = ['a100-80gb-sxm', 'h100-sxm', 'rtx-4090'].map((id) => findGpu(id));
    fc.assert(
      fc.property(
        fc.constantFrom('hf-fsdp', 'hf', 'torchtune', 'torchtitan', 'hf-deepspeed'),
        fc.constantFrom('none', 'full', 'selective'),
        fc.constantFrom(...gpus),
        fc.constantFrom(2, 4, 8),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(512, 2048, 8192),
        fc.boolean(),
        (fw, ckpt, gpu, n, batch, seq, fsdp2) => {
          const o = options(fw, ckpt, n, { batch, seq });
          const t = times(n, { fsdp2 });
          const plain = trainWork(m, o, t);
          const reentrant = trainWork(m, o, { ...t, reentrantCheckpoint: true });
          expect(plain.gatherBytes).toBeLessThanOrEqual(reentrant.gatherBytes + 1e-3);
          expect(plain.offloadPasses).toBeLessThanOrEqual(reentrant.offloadPasses);
          const r = gpuRates(gpu, t);
          expect(trainStep(plain, r)).toBeLessThanOrEqual(trainStep(reentrant, r) + 1e-12);
          if (ckpt === 'none') expect(plain.gatherBytes).toBe(reentrant.gatherBytes);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe("torch FSDP's gradient division passes", () => {
  const m = modelFacts(resolveModel('llama-3.1-8b'));

  it("takes FSDP1's pre-divide factor of default_hooks.py for the rows' world sizes", () => {
    // The smallest power of two f with n / f <= f: 2 ranks divide by 2 before the reduce and by 1 after, 4 by 2 and
    // 2, 8 by 4 and 2, 16 by 4 and 4, 64 by 8 and 8.
    expect([1, 2, 4, 8, 16, 64, 128].map(predivideFactor)).toEqual([1, 2, 2, 4, 4, 8, 16]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), (k) => {
        const n = 2 ** k;
        const pre = predivideFactor(n);
        expect(pre * pre).toBeGreaterThanOrEqual(n);
        expect(Number.isInteger(n / pre)).toBe(true);
        expect(n / pre).toBeLessThanOrEqual(pre);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('divides the unsharded gradient and the shard on FSDP1, neither on bf16 FSDP2, DeepSpeed or one rank', () => {
    const o = options('hf-fsdp', 'full', 8);
    const fsdp1 = trainWork(m, o, times(8, { fsdp2: false }));
    // 8 ranks of bf16 gradients: 2 x 2 B of each trainable element before (factor 4) and 2 x 2 B / 8 after (factor 2).
    expect(fsdp1.gradDivideBytes).toBeCloseTo(m.total * 2 * 2 * (1 + 1 / 8), -4);
    // 2 ranks: the pre-divide alone (post factor 1).
    const two = trainWork(m, options('hf-fsdp', 'full', 2), times(2, { fsdp2: false }));
    expect(two.gradDivideBytes).toBeCloseTo(m.total * 2 * 2, -4);
    expect(trainWork(m, o, times(8, { fsdp2: true })).gradDivideBytes).toBe(0);
    expect(trainWork(m, options('hf-deepspeed', 'full', 8), times(8)).gradDivideBytes).toBe(0);
    expect(trainWork(m, options('hf-fsdp', 'full', 1), times(1)).gradDivideBytes).toBe(0);
    const unit = { ...o, compute: 'fp16' as const };
    expect(gradDivideBytes(unit, times(8, { fsdp2: true }), 1e9, 8, true)).toBeCloseTo(
      2e9 * (1 + 1 / 8),
      0,
    );
  });

  it('the division passes never shorten the step (properties)', () => {
    const gpus = ['a100-80gb-sxm', 'h100-sxm', 'rtx-3090'].map((id) => findGpu(id));
    fc.assert(
      fc.property(
        fc.constantFrom(...gpus),
        fc.constantFrom(2, 4, 8),
        fc.integer({ min: 1, max: 4 }),
        (gpu, n, batch) => {
          const t = times(n, { fsdp2: false });
          const w = trainWork(m, options('hf-fsdp', 'full', n, { batch }), t);
          const r = gpuRates(gpu, t);
          expect(w.gradDivideBytes).toBeGreaterThan(0);
          expect(trainStep(w, r)).toBeGreaterThanOrEqual(
            trainStep({ ...w, gradDivideBytes: 0 }, r),
          );
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
