/**
 * Where full recompute runs against FSDP's gathers. torchtune and torchtitan wrap each layer in torch's
 * checkpoint_wrapper before fully_shard wraps it (torchtune v0.6.1 recipes/full_finetune_distributed.py:
 * set_activation_checkpointing, then shard_model; torchtitan@b5bcd76 models/llama3/parallelize.py: AC, then
 * apply_fsdp_to_decoder), so the recompute runs inside the unit on the parameters its pre-backward unshard gathered
 * (and copied from the host under CPU offload): two gathers and two host copies a micro-batch. HF's Trainer checkpoints
 * at the layer's call site, outside the unit: non-reentrant, the recompute runs on backward's gather (FSDP's
 * pre-forward returns at once in BACKWARD_PRE); reentrant, it gathers a third time. DeepSpeed's hooks fetch on every
 * forward: the recompute gathers a third time there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { trainStep } from '../../src/core/time/train-step.js';
import { trainWork } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 40);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261206);

function work(
  framework: string,
  checkpointing: 'none' | 'full',
  offload: 'optimizer' | 'optimizer+params' | 'none' = 'none',
  model = 'llama-3.1-8b',
  gpus = 8,
  extra: Partial<TimeOptions> = {},
) {
  const o = optionsFromFlags({
    framework,
    method: 'full',
    zero: 3,
    offload,
    gpus,
    batch: 1,
    seq: 2048,
    checkpointing,
    attention: 'flash',
  });
  const t: TimeOptions = { ...defaultTimeOptions(gpus), gradAccum: 4, gpusPerNode: 8, ...extra };
  return { w: trainWork(modelFacts(resolveModel(model)), o, t), t };
}

describe('full recompute and the sharded unit', () => {
  it('marks the engines whose checkpoint wrapper sits inside each FSDP unit', () => {
    expect(FRAMEWORKS.torchtune.recomputeInUnit).toBe(true);
    expect(FRAMEWORKS.torchtitan.recomputeInUnit).toBe(true);
    expect(FRAMEWORKS.hf.recomputeInUnit).toBeUndefined();
    expect(FRAMEWORKS.deepspeed.recomputeInUnit).toBeUndefined();
  });

  it('gathers twice a micro-batch on torchtune and torchtitan with or without recompute', () => {
    for (const fw of ['torchtune', 'torchtitan']) {
      const plain = work(fw, 'none').w;
      const full = work(fw, 'full').w;
      expect(plain.gatherPassBytes).toBeGreaterThan(0);
      expect(full.recompute).toBeGreaterThan(0);
      expect(full.gatherBytes).toBeCloseTo(2 * full.gatherPassBytes, 0);
      expect(full.gatherBytes).toBeCloseTo(plain.gatherBytes, 0);
    }
  });

  it("gathers a third time for HF's call-site checkpointing under FSDP only when it is reentrant", () => {
    const full = work('hf-fsdp', 'full').w;
    expect(full.gatherBytes).toBeCloseTo(2 * full.gatherPassBytes, 0);
    const reentrant = work('hf-fsdp', 'full', 'none', 'llama-3.1-8b', 8, {
      reentrantCheckpoint: true,
    }).w;
    expect(reentrant.gatherBytes).toBeCloseTo(3 * reentrant.gatherPassBytes, 0);
    const offloaded = work('hf-fsdp', 'full', 'optimizer+params', 'llama-3.1-8b', 8, {
      reentrantCheckpoint: true,
    });
    expect(offloaded.w.offloadPasses).toBe(3);
  });

  it('copies offloaded parameters to the device twice on torchtune and non-reentrant HF FSDP', () => {
    expect(work('torchtune', 'full', 'optimizer+params').w.offloadPasses).toBe(2);
    expect(work('hf-fsdp', 'full', 'optimizer+params').w.offloadPasses).toBe(2);
  });

  it('a third gather of the recompute never shortens the step (properties)', () => {
    const gpus = ['a100-40gb-sxm', 'h100-sxm', 'l40s'].map((id) => findGpu(id));
    fc.assert(
      fc.property(
        fc.constantFrom('torchtune', 'torchtitan'),
        fc.constantFrom('llama-3.1-8b', 'qwen3-8b'),
        fc.constantFrom(...gpus),
        fc.constantFrom(2, 4, 8),
        (fw, model, gpu, n) => {
          const { w, t } = work(fw, 'full', 'none', model, n);
          const r = gpuRates(gpu, t);
          const third = { ...w, gatherBytes: w.gatherBytes + w.gatherPassBytes };
          expect(trainStep(third, r)).toBeGreaterThanOrEqual(trainStep(w, r));
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
