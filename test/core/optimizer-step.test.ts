// Optimizer step traffic (src/core/time/optimizer-step.ts): the fused AdamW kernel's passes, or torch's foreach ops
// where the run stepped torch.optim.AdamW with its defaults (TimeOptions.adamForeach); the trainer's gradient-norm clip
// before the step (FrameworkProfile.gradClip).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { gradClipBytes, optimizerStepBytes } from '../../src/core/time/optimizer-step.js';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = defaultTimeOptions(1);
const full16 = { ...defaultOptions('full'), optimizerStates: 'bf16' as const };

describe('optimizer step traffic', () => {
  it("the hf stack's fused AdamW keeps the optimizer row's bytes", () => {
    expect(optimizerStepBytes(full16, t)).toBe(OPTIMIZER_PROFILES.adamw.stepTraffic(2));
  });

  it("torch AdamW foreach moves each parameter's tensors once per op: 6p + 14s", () => {
    // Pure bf16 full fine-tune: bf16 params, grads and states.
    expect(optimizerStepBytes(full16, { ...t, adamForeach: true })).toBe(6 * 2 + 14 * 2);
    // fp32 masters and states: 80 B where the fused kernel moves 28.
    const masters = { ...defaultOptions('full'), masterWeights: true };
    expect(optimizerStepBytes(masters, { ...t, adamForeach: true })).toBe(6 * 4 + 14 * 4);
    expect(optimizerStepBytes(masters, t)).toBe(28);
    // LoRA on the hf stack: fp32 adapters (PEFT autocast_adapter_dtype), unless kept in the weights' dtype; torch
    // AdamW makes its states like the parameter (zeros_like: statesLikeParams), so bf16 adapters step bf16 states.
    const lora = { ...defaultOptions('lora') };
    expect(optimizerStepBytes(lora, { ...t, adamForeach: true })).toBe(6 * 4 + 14 * 4);
    expect(optimizerStepBytes(lora, { ...t, adamForeach: true, adaptersInWeightDtype: true })).toBe(
      6 * 2 + 14 * 2,
    );
  });

  it("without the run's field every stack keeps the fused row (the launchers write AdamW fused)", () => {
    for (const framework of ['hf', 'unsloth', 'torchtune', 'litgpt'] as const)
      expect(optimizerStepBytes({ ...full16, framework }, t)).toBe(
        OPTIMIZER_PROFILES.adamw.stepTraffic(2),
      );
  });

  it('other optimizers keep their fused rows whatever the AdamW implementation', () => {
    const eight = { ...full16, optimizer: 'adamw-8bit' as const };
    expect(optimizerStepBytes(eight, { ...t, adamForeach: true })).toBe(
      OPTIMIZER_PROFILES['adamw-8bit'].stepTraffic(2),
    );
  });

  it("a full fine-tune's optimizer phase grows by the foreach bytes at the card's memory rate", () => {
    const arch = resolveModel('llama-3.2-3b');
    const o = { ...full16, batch: 4, seq: 210 };
    const gpu = findGpu('l40s');
    const phase = (adamForeach: boolean) =>
      estimateTime(arch, o, gpu, { ...t, adamForeach }).phases.find((p) => p.phase === 'optimizer')!
        .seconds;
    // The Trainer's clip rides in the same phase: a read for the norm, a read and a write to scale (2 + 2 x 2 B).
    const clip = 2 + 2 * 2;
    expect(phase(true) / phase(false)).toBeCloseTo(
      (6 * 2 + 14 * 2 + clip) / (12 + 4 * 2 + clip),
      2,
    );
  });
});

describe("the trainer's gradient-norm clip", () => {
  it("the HF Trainer's clip_grad_norm_: one read for the norm, a read and a write to scale, in the gradients' width", () => {
    expect(gradClipBytes(full16, t)).toBe(2 + 2 * 2);
    const fp32 = { ...defaultOptions('full'), weights: 'fp32' as const };
    expect(gradClipBytes(fp32, t)).toBe(4 + 2 * 4);
  });

  it("DeepSpeed's: the 16-bit gradient's norm through an fp64 copy, then the fp32 partition scaled", () => {
    const ds = {
      ...defaultOptions('full'),
      framework: 'deepspeed' as const,
      masterWeights: true,
      zero: 2 as const,
    };
    expect(gradClipBytes(ds, t)).toBe(2 + 16 + 2 * 4);
  });

  it('nothing where the engine clips nothing by default, the run clipped nothing, or there is no optimizer', () => {
    for (const framework of ['torchtune', 'litgpt'] as const)
      expect(gradClipBytes({ ...full16, framework }, t), framework).toBe(0);
    expect(gradClipBytes(full16, { ...t, noGradClip: true })).toBe(0);
    expect(gradClipBytes({ ...full16, optimizer: 'none' as const }, t)).toBe(0);
  });

  it('never shortens a step: a run that clipped nothing times no slower, at any batch and length', () => {
    const arch = resolveModel('llama-3.2-3b');
    const gpu = findGpu('a100-80gb-sxm');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 64, max: 4096 }),
        fc.constantFrom(
          { framework: 'hf' as const, zero: 0 as const },
          { framework: 'hf' as const, zero: 3 as const, gpus: 4 },
          { framework: 'deepspeed' as const, zero: 2 as const, gpus: 4, masterWeights: true },
        ),
        (batch, seq, stack) => {
          const o = { ...full16, batch, seq, ...stack };
          const clipped = estimateTime(arch, o, gpu, t).stepSeconds;
          const unclipped = estimateTime(arch, o, gpu, { ...t, noGradClip: true }).stepSeconds;
          expect(unclipped).toBeLessThan(clipped);
        },
      ),
      { numRuns: 25 },
    );
  });
});
