/**
 * FSDP1 under torch's reentrant checkpoint at the model's call site (transformers 4.x's default `use_reentrant: True`):
 * the checkpointed forward runs under no_grad, so no unit is marked for a pre-backward unshard and BACKWARD_PRE prefetches
 * nothing; in backward each unit is gathered for its recompute, freed, and gathered again by the pre-backward hook the
 * recompute registered (torch/distributed/fsdp/_runtime_utils.py, torch 2.4.1). Behind a per-expert loop that syncs the
 * host, that second gather has no queued work to hide behind: a pass of gathers in series with backward
 * (TrainWork.bwdGatherSerial, time/fsdp-unshard-order.ts backwardGathersInSeries). Non-reentrant checkpointing, the
 * checkpoint wrapper inside the unit, FSDP2, DeepSpeed's ZeRO-3 and the grouped experts are not held.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const a100 = findGpu('a100-80gb-sxm');
// fms-acceleration's Mixtral LoRA rows' shape: LoRA over FSDP FULL_SHARD on two A100, 2 x 4,096 tokens, full recompute.
const flags: RawFlags = {
  method: 'lora',
  'lora-rank': 16,
  batch: 2,
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
  zero: 3,
  gpus: 2,
  gpu: 'a100-80gb-sxm',
  framework: 'hf-fsdp',
};
const fsdp = optionsFromFlags(flags);
const gatherPhase = TRAIN_PHASES.indexOf('parameter-gather');

describe("FSDP1's backward gathers under a reentrant call-site checkpoint and a per-expert loop", () => {
  const m = modelFacts(resolveModel('mixtral-8x7b'));
  const t = { ...defaultTimeOptions(2), moeLoop: true, fsdp2: false };
  const r = gpuRates(a100, t);

  it('runs the backward pass of gathers in series under reentrant checkpointing, not under non-reentrant', () => {
    const reentrant = trainWork(m, fsdp, { ...t, reentrantCheckpoint: true });
    const plain = trainWork(m, fsdp, t);
    expect(reentrant.bwdGatherSerial).toBe(true);
    expect(plain.bwdGatherSerial).toBe(false);
    // The reentrant recompute gathers each unit once more; non-reentrant runs on backward's gather.
    expect(reentrant.gatherBytes).toBeCloseTo(plain.gatherBytes + plain.gatherPassBytes, 0);
    const held = new Float64Array(TRAIN_PHASES.length);
    const free = new Float64Array(TRAIN_PHASES.length);
    const stepHeld = trainStep(reentrant, r, held);
    const stepFree = trainStep(plain, r, free);
    expect(stepHeld).toBeGreaterThan(stepFree);
    expect(held[gatherPhase]!).toBeGreaterThan(free[gatherPhase]!);
    // At most two more passes of gathers (the recompute's, and backward's in series) over the link that prices them.
    const pass = plain.gatherPassBytes / r.intraPair;
    expect(stepHeld - stepFree).toBeLessThanOrEqual(2 * pass * 1.01 + 1e-3);
  });

  it('holds neither the grouped experts, a dense model, FSDP2, DeepSpeed nor a run without full recompute', () => {
    const rt = { ...t, reentrantCheckpoint: true };
    expect(trainWork(m, fsdp, { ...rt, moeLoop: false }).bwdGatherSerial).toBe(false);
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    expect(trainWork(dense, fsdp, rt).bwdGatherSerial).toBe(false);
    expect(trainWork(m, fsdp, { ...rt, fsdp2: true }).bwdGatherSerial).toBe(false);
    const ds = optionsFromFlags({ ...flags, framework: 'hf-deepspeed' });
    expect(trainWork(m, ds, rt).bwdGatherSerial).toBe(false);
    const noRecompute = optionsFromFlags({ ...flags, checkpointing: 'none' });
    expect(trainWork(m, noRecompute, rt).bwdGatherSerial).toBe(false);
    const selective = optionsFromFlags({ ...flags, checkpointing: 'selective' });
    expect(trainWork(m, selective, rt).bwdGatherSerial).toBe(false);
  });

  it("is independent of FSDP1's forward_prefetch, which prefetches in forward only", () => {
    const w = trainWork(m, fsdp, { ...t, reentrantCheckpoint: true, fsdpForwardPrefetch: true });
    expect(w.fwdGatherSerial).toBe(false);
    expect(w.bwdGatherSerial).toBe(true);
  });

  it('adds at most two passes of gathers and never shortens the step, at any batch and length', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 128, max: 8192 }),
        (batch, seq) => {
          const o = optionsFromFlags({ ...flags, batch, seq });
          const plain = trainWork(m, o, t);
          const held = trainWork(m, o, { ...t, reentrantCheckpoint: true });
          const diff = trainStep(held, r) - trainStep(plain, r);
          expect(diff).toBeGreaterThanOrEqual(-1e-9);
          expect(diff).toBeLessThanOrEqual(
            ((2 * plain.gatherPassBytes) / r.intraPair) * 1.01 + 1e-3,
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
