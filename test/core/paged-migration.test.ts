// Paged optimizer states that do not all fit on the card migrate over PCIe every step (time/paged-migration.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { estimateTime, modelFacts, pcieGBps, trainWork } from '../../src/core/time/index.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { pagedSpills, pagedWork } from '../../src/core/time/paged-migration.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const GiB = 1024 ** 3;

function optionsOf(flags: Record<string, unknown>) {
  const asked = optionsFromFlags({ method: 'full', seq: 2048, batch: 2, ...flags });
  return onEngine(asked, engineOf(asked));
}

// The torchtune README's single-GPU full fine-tune recipe (8B_full_single_device.yaml), on a given card.
const README = {
  model: 'llama-3.1-8b',
  optimizer: 'paged-adamw-8bit',
  framework: 'torchtune',
  checkpointing: 'full',
  'chunked-loss': true,
  'optimizer-in-backward': true,
  compile: true,
};

describe('paged optimizer migration', () => {
  it('a spilled step is never faster than the same step with its states resident', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('llama-3.2-1b', 'llama-3.1-8b', 'qwen2.5-7b'),
        fc.constantFrom('paged-adamw', 'paged-adamw-8bit'),
        fc.constantFrom('full', 'lora'),
        fc.constantFrom('rtx-4090', 'a100-80gb-sxm', 'h100-sxm', 't4'),
        fc.integer({ min: 1, max: 8 }),
        (model, optimizer, method, gpuId, batch) => {
          const arch = resolveModel(model);
          const o = optionsOf({ model, optimizer, method, batch, framework: 'hf' });
          const gpu = findGpu(gpuId);
          const t = defaultTimeOptions(1);
          const resident = estimateTime(arch, o, gpu, t, undefined, false).stepSeconds;
          const spilled = estimateTime(arch, o, gpu, t, undefined, true).stepSeconds;
          expect(spilled).toBeGreaterThanOrEqual(resident);
          // Full fine-tunes have paged states to move: the migration costs time.
          if (method === 'full') expect(spilled).toBeGreaterThan(resident);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a preference objective's policy step pays it too", () => {
    const arch = resolveModel('llama-3.2-1b');
    const o = optionsOf({
      model: 'llama-3.2-1b',
      optimizer: 'paged-adamw-8bit',
      objective: 'dpo',
      framework: 'hf',
    });
    const gpu = findGpu('rtx-4090');
    const t = defaultTimeOptions(1);
    const total = 1.24e9;
    const resident = estimateObjectiveTime(arch, o, gpu, t, total, false);
    const spilled = estimateObjectiveTime(arch, o, gpu, t, total, true);
    expect(spilled.objectivePhases.policyTraining).toBeGreaterThan(
      resident.objectivePhases.policyTraining,
    );
    expect(spilled.stepSeconds).toBeGreaterThan(resident.stepSeconds);
  });

  it('times every paged state in and out over the host link when the card cannot hold them all', () => {
    const arch = resolveModel('llama-3.1-8b');
    const o = optionsOf(README);
    const gpu = findGpu('rtx-4090');
    const e = buildEstimate(arch, o, gpu);
    expect(e.paged!.hostBytes).toBeGreaterThan(GiB);
    const t = defaultTimeOptions(1);
    const resident = estimateTime(arch, o, gpu, t).stepSeconds;
    // Half the x16 link's rate (bitsandbytes' docs): PCIe 4.0 x16, 32 GB/s, on an RTX 4090.
    expect(pcieGBps(gpu.interconnect.pcie)).toBe(32);
    const migration = e.paged!.statesBytes / 16e9;
    expect(e.time!.stepSeconds).toBeCloseTo(resident + migration, 2);
    // It is part of the optimizer phase.
    const opt = e.time!.phases.find((p) => p.phase === 'optimizer')!.seconds;
    expect(opt).toBeGreaterThan(migration - 0.01);
  });

  it('charges nothing where every paged state fits', () => {
    const arch = resolveModel('llama-3.1-8b');
    const o = optionsOf(README);
    const gpu = findGpu('h100-sxm');
    const e = buildEstimate(arch, o, gpu);
    expect(e.paged!.hostBytes).toBe(0);
    const resident = estimateTime(arch, o, gpu, defaultTimeOptions(1)).stepSeconds;
    expect(e.time!.stepSeconds).toBe(resident);
  });

  it("the planner's spill test agrees with the memory model's placement", () => {
    const arch = resolveModel('llama-3.1-8b');
    const o = optionsOf(README);
    const w = trainWork(modelFacts(arch), o, defaultTimeOptions(1));
    for (const id of ['rtx-4090', 'rtx-3090', 'a100-40gb-sxm', 'h100-sxm']) {
      const gpu = findGpu(id);
      const e = buildEstimate(arch, o, gpu);
      const capacity = e.gpu!.capacityBytes;
      expect(Math.abs(w.pagedStateBytes - e.paged!.statesBytes)).toBeLessThan(0.01 * GiB);
      expect(pagedSpills(w, e.paged!.fitDeviceBytes, capacity)).toBe(e.paged!.hostBytes > 0);
    }
  });

  it('only optimizers with paged states have any', () => {
    const arch = resolveModel('llama-3.2-1b');
    for (const optimizer of Object.keys(OPTIMIZER_PROFILES)) {
      const o = optionsOf({ model: 'llama-3.2-1b', optimizer, framework: 'hf' });
      const p = pagedWork(modelFacts(arch), o, 1e9, false, 1);
      if (OPTIMIZER_PROFILES[o.optimizer].paged) expect(p.pagedStateBytes).toBeGreaterThan(0);
      else expect(p.pagedStateBytes).toBe(0);
    }
  });
});
