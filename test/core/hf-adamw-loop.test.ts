/**
 * transformers.AdamW (the Trainer's `optim="adamw_hf"`, its default in transformers 4.18; TimeOptions.adamHfLoop, a
 * row's `adam_impl: "hf-loop"`): a Python loop over the parameter tensors, seven in-place ops each, moving 4 passes of
 * the parameter's width and 14 of the states' (time/optimizer-step.ts). The step takes the longer of the loop's host
 * ops and its traffic.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import {
  HF_ADAMW_OPS_PER_TENSOR,
  optimizerLoopOps,
  optimizerStepBytes,
  parameterTensors,
} from '../../src/core/time/optimizer-step.js';
import { EAGER_OP_SECONDS } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const bert = modelFacts(resolveModel('bert-large-uncased'));
const fp32 = optionsFromFlags({
  method: 'full',
  weights: 'fp32',
  compute: 'fp32',
  batch: 4,
  seq: 512,
  gpu: 'v100-16gb',
  framework: 'hf',
});
const hfLoop = { ...defaultTimeOptions(1), adamHfLoop: true };

describe("transformers.AdamW's per-tensor loop (adamw_hf)", () => {
  it("moves 72 bytes a parameter in fp32 (4 parameter and 14 state passes), against the fused kernel's 28", () => {
    expect(optimizerStepBytes(fp32, hfLoop)).toBe(72);
    expect(optimizerStepBytes(fp32, defaultTimeOptions(1))).toBe(28);
  });

  it("counts BERT-large's 24 layers of 16 tensors (six linears and two LayerNorms, each with a bias) and 3 more", () => {
    expect(parameterTensors(bert)).toBe(24 * 16 + 3);
    expect(optimizerLoopOps(bert, fp32, hfLoop)).toBe((24 * 16 + 3) * HF_ADAMW_OPS_PER_TENSOR);
    // Not the loop: a fused step, another optimizer, or an adapter run.
    expect(optimizerLoopOps(bert, fp32, defaultTimeOptions(1))).toBe(0);
    expect(optimizerLoopOps(bert, { ...fp32, optimizer: 'adafactor' }, hfLoop)).toBe(0);
  });

  it("the step's optimizer phase is the longer of the loop's host ops and its traffic", () => {
    const r = gpuRates(findGpu('v100-16gb'), hfLoop);
    const w = trainWork(bert, fp32, hfLoop);
    const fused = trainWork(bert, fp32, defaultTimeOptions(1));
    expect(w.optimizerHostSeconds).toBeCloseTo(387 * 7 * EAGER_OP_SECONDS, 9);
    const added = trainStep(w, r) - trainStep(fused, r);
    const expected =
      Math.max(w.optimizerBytes / r.mem, w.optimizerHostSeconds) - fused.optimizerBytes / r.mem;
    expect(added).toBeCloseTo(expected, 9);
    expect(added).toBeGreaterThan(0);
  });

  it('its traffic grows with the trainable width and never falls below the fused step (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('fp32', 'bf16', 'fp16'), (weights) => {
        const o = { ...fp32, weights: weights as 'fp32' | 'bf16' | 'fp16' };
        expect(optimizerStepBytes(o, hfLoop)).toBeGreaterThan(
          optimizerStepBytes(o, defaultTimeOptions(1)),
        );
      }),
    );
  });
});
