// DeepSpeed's ZeRO hooks on the host (engines/hf/memory.ts DEEPSPEED_HOOKS, time/zero-hooks.ts) and ZeRO's
// collectives on the compute stream under overlap_comm false (TimeOptions.serialComm).
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const gpu = findGpu('a100-80gb-sxm');
// The engines' memory frameworks: hf-deepspeed runs 'deepspeed', hf-fsdp runs 'hf' (their profiles).
const full = (zero: 0 | 1 | 2 | 3, framework: 'deepspeed' | 'hf'): EstimateOptions => ({
  ...defaultOptions('full'),
  framework,
  weights: 'bf16',
  compute: 'bf16',
  batch: 1,
  seq: 8192,
  checkpointing: 'full',
  attention: 'flash',
  zero,
  gpus: 8,
});
const arch = resolveModel('qwen3-30b-a3b');
const m = modelFacts(arch);
const t: TimeOptions = { ...defaultTimeOptions(2), moeLoop: true };
const work = (o: EstimateOptions, time = t) => trainWork(m, o, time);
const seconds = (o: EstimateOptions, time = t) => trainStep(work(o, time), gpuRates(gpu, time));

describe('DeepSpeed ZeRO hooks', () => {
  it('are DeepSpeed’s: FSDP and the other engines gather whole wrapped units', () => {
    expect(FRAMEWORKS.deepspeed.zeroHooks).toEqual({
      moduleOps: 16,
      gradOps: { 2: 5, 3: 6 },
      reduceOps3: { perParam: 7, perRank: 1 },
    });
    expect(FRAMEWORKS.hf.zeroHooks).toBeUndefined();
    expect(FRAMEWORKS.torchtitan.zeroHooks).toBeUndefined();
  });

  it('ZeRO-3 over a per-expert loop: 16 ops per expert linear module and 3 per parameter-less one a pass', () => {
    const w = work(full(3, 'deepspeed'));
    // Qwen3-30B-A3B: 48 layers, 128 experts x 3 linears, all hit at 8,192 tokens x top 8; each expert also is
    // its MLP module and its activation module (hooked, no parameters).
    const hit = w.expertsHit;
    expect(hit).toBeGreaterThan(127.9);
    expect(w.zeroHookLoopOps).toBeCloseTo(16 * 48 * hit * 3 + 3 * 48 * hit * 2, 0);
    // q, k, v, o and the router are the dense modules (5); the layer, its attention, its sparse MoE block and its
    // 2 norms are hooked and gather nothing (5, 3 ops each); gradients: the dense modules, 2 norms and every expert
    // linear, each 6 ops into the bucket, 7 to reduce-scatter and file it and one per rank (8).
    const layerBare = 3 * 48 * 5;
    expect(w.zeroHookFwdOps).toBe(16 * 48 * 5 + layerBare);
    const gradOps = 6 + 7 + 8;
    expect(w.zeroHookBwdOps).toBeCloseTo(
      16 * 48 * (5 + hit * 3) + layerBare + 3 * 48 * hit * 2 + gradOps * 48 * (5 + 2 + hit * 3),
      6,
    );
    // The experts' share, which ZeRO-3's event windows keep in step with the GPU.
    expect(w.zeroHookLoopBwdOps).toBeCloseTo(
      16 * 48 * hit * 3 + 3 * 48 * hit * 2 + gradOps * 48 * hit * 3,
      6,
    );
    expect(work(full(2, 'deepspeed')).zeroHookLoopBwdOps).toBe(0);
  });

  it('ZeRO-3 under PEFT LoRA: each adapted linear is 3 modules with a parameter and 2 without', () => {
    const lora = (targets: EstimateOptions['loraTargets']): EstimateOptions => ({
      ...full(3, 'deepspeed'),
      method: 'lora',
      loraRank: 64,
      loraTargets: targets,
    });
    const qv = work(lora(['q', 'v']));
    const q = work(lora(['q']));
    // One more adapted linear a layer: lora_A and lora_B (16 ops each) and PEFT's wrapper and dropout (3 each).
    expect(qv.zeroHookFwdOps - q.zeroHookFwdOps).toBe(48 * (2 * 16 + 2 * 3));
    // Adapted experts in the loop: the same two parameter-less modules per expert linear.
    const experts = work(lora(['q', 'gate', 'up', 'down']));
    const hit = experts.expertsHit;
    expect(experts.zeroHookLoopOps - q.zeroHookLoopOps).toBeCloseTo(
      48 * hit * 3 * (2 * 16 + 2 * 3),
      6,
    );
  });

  it('ZeRO-3 reduce ops grow with the data-parallel ranks', () => {
    const w8 = work(full(3, 'deepspeed'));
    const w16 = work({ ...full(3, 'deepspeed'), gpus: 16 });
    const grads = 48 * (5 + 2 + w8.expertsHit * 3);
    expect(w16.zeroHookBwdOps - w8.zeroHookBwdOps).toBeCloseTo(8 * grads, 6);
  });

  it('ZeRO-2 pays only the gradient hooks; ZeRO-1 and FSDP none', () => {
    const z2 = work(full(2, 'deepspeed'));
    expect(z2.zeroHookFwdOps).toBe(0);
    expect(z2.zeroHookLoopOps).toBe(0);
    expect(z2.zeroHookBwdOps).toBeGreaterThan(0);
    expect(work(full(1, 'deepspeed')).zeroHookBwdOps).toBe(0);
    expect(work(full(3, 'hf')).zeroHookBwdOps).toBe(0);
  });

  it('grouped experts (transformers 5) are one module of two 3-D parameters per layer', () => {
    const grouped = work(full(3, 'deepspeed'), defaultTimeOptions(2));
    const looped = work(full(3, 'deepspeed'));
    expect(grouped.zeroHookLoopOps).toBe(0);
    expect(grouped.zeroHookFwdOps).toBe(looped.zeroHookFwdOps + 16 * 48);
  });

  it('the hooks never make a step faster, and a looped ZeRO-3 step pays them in series', () => {
    const o = full(3, 'deepspeed');
    const noHooks = { ...FRAMEWORKS.deepspeed };
    const hooks = noHooks.zeroHooks;
    const withHooks = seconds(o);
    try {
      delete (FRAMEWORKS.deepspeed as { zeroHooks?: unknown }).zeroHooks;
      const without = seconds(o);
      // The loop syncs per expert: at least the forward's and the recompute's hook ops add up.
      expect(withHooks - without).toBeGreaterThanOrEqual(
        2 * 2 * work(o).zeroHookLoopOps * 10e-6 * 0.999,
      );
    } finally {
      (FRAMEWORKS.deepspeed as { zeroHooks?: unknown }).zeroHooks = hooks;
    }
  });

  it('overlap_comm false puts the gradient reduces in series with backward, the gathers still overlap', () => {
    const o = full(3, 'deepspeed');
    // One node of 8 (NVLink): compute hides the collectives when they overlap.
    const time: TimeOptions = { ...defaultTimeOptions(2), gpusPerNode: 8 };
    const overlapped = seconds(o, time);
    const serial = seconds(o, { ...time, serialComm: true });
    const w = work(o, time);
    const r = gpuRates(gpu, time);
    expect(serial).toBeGreaterThan(overlapped);
    // Two micro-batches, each at most its reduced bytes over the data-parallel link (the gathers unchanged).
    expect(serial - overlapped).toBeLessThanOrEqual((2 * w.gradReduceBytes) / r.intraMany + 1e-9);
  });
});
