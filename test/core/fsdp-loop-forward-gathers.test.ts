/**
 * An FSDP unit unshards itself from its own pre-forward hook (FSDP1 without forward_prefetch, FSDP2's implicit
 * prefetch): its all-gather overlaps the unit before it only because the CPU runs ahead. A per-expert loop syncs the
 * host once per expert, so in forward each unit's all-gather waits for the unit before it (TrainWork.fwdGatherSerial,
 * time/fsdp-unshard-order.ts forwardGathersInSeries). DeepSpeed's ZeRO-3 prefetches from its trace and is not held; neither is
 * a run that set FSDP's forward_prefetch (TimeOptions.fsdpForwardPrefetch), nor the grouped experts (no syncs).
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const a100 = findGpu('a100-80gb-sxm');
// fms-acceleration's Mixtral baseline shape: pure bf16 full fine-tune, FSDP FULL_SHARD on 8 A100, 210 tokens.
const fsdp = optionsFromFlags({
  method: 'full',
  weights: 'bf16',
  'optimizer-states': 'bf16',
  batch: 1,
  seq: 210,
  checkpointing: 'full',
  attention: 'flash',
  zero: 3,
  gpus: 8,
  gpu: 'a100-80gb-sxm',
  framework: 'hf-fsdp',
});
const deepspeed = optionsFromFlags({
  method: 'full',
  weights: 'bf16',
  batch: 1,
  seq: 210,
  checkpointing: 'full',
  attention: 'flash',
  zero: 3,
  gpus: 8,
  gpu: 'a100-80gb-sxm',
  framework: 'hf-deepspeed',
});
const gatherPhase = TRAIN_PHASES.indexOf('parameter-gather');

describe("FSDP's forward gathers behind a per-expert loop's syncs", () => {
  const m = modelFacts(resolveModel('mixtral-8x7b'));
  const t = defaultTimeOptions(8);
  const r = gpuRates(a100, t);

  it('runs the forward pass of gathers in series with the forward under the loop', () => {
    const looped = trainWork(m, fsdp, { ...t, moeLoop: true });
    expect(looped.fwdGatherSerial).toBe(true);
    const prefetched = trainWork(m, fsdp, { ...t, moeLoop: true, fsdpForwardPrefetch: true });
    expect(prefetched.fwdGatherSerial).toBe(false);
    // Same work otherwise: the held forward adds at least its own pass of gathers beyond what compute hid.
    const held = new Float64Array(TRAIN_PHASES.length);
    const free = new Float64Array(TRAIN_PHASES.length);
    const stepHeld = trainStep(looped, r, held);
    const stepFree = trainStep(prefetched, r, free);
    expect(stepHeld).toBeGreaterThan(stepFree);
    expect(held[gatherPhase]!).toBeGreaterThan(free[gatherPhase]!);
  });

  it('leaves the grouped experts, dense models and DeepSpeed ZeRO-3 as they were', () => {
    expect(trainWork(m, fsdp, t).fwdGatherSerial).toBe(false);
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    expect(trainWork(dense, fsdp, { ...t, moeLoop: true }).fwdGatherSerial).toBe(false);
    expect(trainWork(m, deepspeed, { ...t, moeLoop: true }).fwdGatherSerial).toBe(false);
  });
});
