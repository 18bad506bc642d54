/**
 * torch._grouped_mm off compute capability 9.x/10.x (or on operands other than bf16) runs PyTorch's per-group
 * fallback: the offsets copied to the host, then one matmul per expert in turn (time/grouped-mm.ts). Engines whose
 * grouped experts are these calls (profile torchGroupedMm: transformers 5, Unsloth's grouped_mm backend, torchtitan)
 * pay it on an A100, an L40S or an RTX card, not on an H100 or a B200.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { groupedMmFallback } from '../../src/core/time/grouped-mm.js';
import { GROUPED_MM_GROUP_SECONDS } from '../../src/core/time/grouped-mm-cost.js';
import { SYNCED_LOOP_OP_SECONDS } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const lora = (framework: string, gpu: string) =>
  optionsFromFlags({
    method: 'lora',
    weights: 'bf16',
    'lora-rank': 32,
    'lora-targets': 'q,k,v,o,gate,up,down',
    batch: 1,
    seq: 1024,
    checkpointing: 'full',
    framework,
    gpu,
  });

describe("torch._grouped_mm's per-group fallback", () => {
  it('runs where PyTorch has no grouped kernel: not on 9.x/10.x with bf16, everywhere with fp16', () => {
    expect(groupedMmFallback(8.0, true)).toBe(true); // A100
    expect(groupedMmFallback(8.9, true)).toBe(true); // L40S, RTX 4090
    expect(groupedMmFallback(12.0, true)).toBe(true); // RTX 5090 / RTX PRO 6000 (sm120)
    expect(groupedMmFallback(9.0, true)).toBe(false); // H100, H200
    expect(groupedMmFallback(10.0, true)).toBe(false); // B200
    expect(groupedMmFallback(9.0, false)).toBe(true); // fp16 operands on an H100
    expect(groupedMmFallback(0, true)).toBe(false); // AMD (no compute capability): not modelled
  });

  it('counts the calls each engine makes: Unsloth adds two per adapted projection, ParamWrapper none', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const t = defaultTimeOptions(1);
    const u = trainWork(m, lora('unsloth', 'a100-80gb-sxm'), t).groupedMm;
    // gate_up and down, each with X·A and ·B: 6 a layer forward; backward the two input gradients and both
    // gradients of the four LoRA calls: 10.
    expect(u.fwdCalls).toBe(6 * m.moeLayers);
    expect(u.bwdCalls).toBe(10 * m.moeLayers);
    expect(u.groups).toBe(128);
    const h = trainWork(m, lora('hf', 'a100-80gb-sxm'), t).groupedMm;
    // ParamWrapper's W + ΔW needs a weight gradient on both adapted projections.
    expect(h.fwdCalls).toBe(2 * m.moeLayers);
    expect(h.bwdCalls).toBe(4 * m.moeLayers);
    // torchtitan's GroupedExperts calls w1, w3 and w2 apart (models/common/moe.py @b5bcd76c): 3 a layer forward; full
    // fine-tuning adds each one's input and weight gradient.
    const full = optionsFromFlags({
      method: 'full',
      batch: 1,
      seq: 1024,
      framework: 'torchtitan',
      gpu: 'a100-80gb-sxm',
    });
    const tt = trainWork(m, full, t).groupedMm;
    expect(tt.fwdCalls).toBe(3 * m.moeLayers);
    expect(tt.bwdCalls).toBe(6 * m.moeLayers);
    const hfFull = trainWork(m, { ...full, framework: 'hf' }, t).groupedMm;
    expect(hfFull.fwdCalls).toBe(2 * m.moeLayers);
    expect(hfFull.bwdCalls).toBe(4 * m.moeLayers);
    // A dense model makes none.
    expect(
      trainWork(modelFacts(resolveModel('qwen3-8b')), lora('unsloth', 'a100-80gb-sxm'), t).groupedMm
        .fwdCalls,
    ).toBe(0);
  });

  it('takes the operands as bf16 unless the run computes in fp16 or fp32 (FP8 leaves the grouped experts bf16)', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const t = defaultTimeOptions(1);
    const flags = { method: 'full', batch: 1, seq: 2048, framework: 'torchtitan', gpu: 'h100-sxm' };
    expect(trainWork(m, optionsFromFlags({ ...flags, compute: 'fp8' }), t).groupedMmBf16).toBe(
      true,
    );
    expect(trainWork(m, optionsFromFlags(flags), t).groupedMmBf16).toBe(true);
    expect(trainWork(m, optionsFromFlags({ ...flags, compute: 'fp16' }), t).groupedMmBf16).toBe(
      false,
    );
  });

  it("prices a group at what huggingface/transformers#42697's A100 grouped_mm forward leaves after the layers' other ops", () => {
    // 24 MoE layers x 2 calls x 60 experts of Qwen1.5-MoE-A2.7B in a 75.23 ms forward, less the layers' eager ops
    // and the calls' synced offsets copies: 19.0 µs a group, nearly four times the 5.12 µs of one square 128 matmul
    // issued from Python (ROCm/triton#343), and above a synced op of a Python loop.
    expect(GROUPED_MM_GROUP_SECONDS * 1e6).toBeCloseTo(19.0, 1);
    expect(GROUPED_MM_GROUP_SECONDS).toBeGreaterThan(SYNCED_LOOP_OP_SECONDS);
  });

  it('slows an A100 step by about a group cost per expert per call, and leaves an H100 as it was', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const t = defaultTimeOptions(1);
    const w = trainWork(m, lora('unsloth', 'a100-80gb-sxm'), t);
    const a100 = trainStep(w, gpuRates(findGpu('a100-80gb-sxm'), t));
    const calls = w.groupedMm.fwdCalls * 2 + w.groupedMm.bwdCalls; // forward, recompute, backward
    const floor = calls * w.groupedMm.groups * GROUPED_MM_GROUP_SECONDS;
    expect(a100).toBeGreaterThan(floor);
    const noFallback = {
      ...w,
      groupedMm: { fwdCalls: 0, bwdCalls: 0, groups: 0, routeP: 0, epRanks: 1, width: 0 },
    };
    expect(a100 - trainStep(noFallback, gpuRates(findGpu('a100-80gb-sxm'), t))).toBeGreaterThan(
      0.8 * floor,
    );
    const h100 = gpuRates(findGpu('h100-sxm'), t);
    expect(trainStep(w, h100)).toBeCloseTo(trainStep(noFallback, h100), 12);
  });
});
