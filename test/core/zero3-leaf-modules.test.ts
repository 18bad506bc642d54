/**
 * ZeRO-3 hooks every submodule that holds a partitioned parameter and every parameter-less one the forward calls
 * (deepspeed/runtime/zero/parameter_offload.py `_register_deepspeed_module`); a sparse MoE block marked a ZeRO-3 leaf
 * (`set_z3_leaf_modules`, deepspeedai/DeepSpeed#4966; the default `leaf_module` classes of deepspeedai/DeepSpeed#7604)
 * is one hooked module that gathers its experts together and hooks nothing inside. Whatever the configuration, marking
 * the blocks leaves removes hooks and so never slows a step, and hooking more modules (LoRA on more linears, each
 * adapted linear three modules with parameters and two without) never shortens one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { LoraTarget } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

// MoE models whose block DeepSpeed marks a leaf by default (engines/hf/memory.ts DEEPSPEED_HOOKS.leafMoe).
const moeModels = ['mixtral-8x7b-v0.1', 'qwen3-30b-a3b', 'qwen1.5-moe-a2.7b'].map((id) =>
  resolveModel(id),
);
const models = [...moeModels, resolveModel('llama-3.1-8b')];
const gpus = ['a100-80gb-sxm', 'h100-sxm'].map((id) => findGpu(id));

const runArb = {
  gpu: fc.constantFrom(...gpus),
  ranks: fc.constantFrom(8, 16, 32),
  batch: fc.constantFrom(1, 2),
  seq: fc.constantFrom(512, 4096),
  checkpointing: fc.constantFrom('none', 'full'),
  gradAccum: fc.constantFrom(1, 8),
  serialComm: fc.boolean(),
  moeLoop: fc.boolean(),
  zeroAutoBuckets: fc.boolean(),
};

interface Run {
  model: (typeof models)[number];
  gpu: (typeof gpus)[number];
  ranks: number;
  batch: number;
  seq: number;
  checkpointing: string;
  gradAccum: number;
  serialComm: boolean;
  moeLoop: boolean;
  zeroAutoBuckets: boolean;
}

function stepOf(c: Run, flags: Record<string, unknown>, time: Partial<TimeOptions>): number {
  const o = optionsFromFlags({
    framework: 'hf-deepspeed',
    zero: 3,
    gpus: c.ranks,
    batch: c.batch,
    seq: c.seq,
    checkpointing: c.checkpointing,
    attention: 'flash',
    ...flags,
  });
  const t: TimeOptions = {
    ...defaultTimeOptions(c.ranks),
    gradAccum: c.gradAccum,
    gpusPerNode: 8,
    serialComm: c.serialComm,
    moeLoop: c.moeLoop,
    zeroAutoBuckets: c.zeroAutoBuckets,
    ...time,
  };
  return estimateTime(c.model, o, c.gpu, t).stepSeconds;
}

const TOLERANCE = 1e-9;

describe('ZeRO-3 leaf modules and hooked modules', () => {
  const example: Run = {
    model: resolveModel('qwen3-30b-a3b'),
    gpu: findGpu('a800-80gb-sxm'),
    ranks: 16,
    batch: 1,
    seq: 8192,
    checkpointing: 'full',
    gradAccum: 1,
    serialComm: true,
    moeLoop: true,
    zeroAutoBuckets: true,
  };

  it("a leaf block is strictly faster than Qwen3-30B-A3B's hooked per-expert loop (ms-swift's 16-A800 run)", () => {
    const leaf = stepOf(example, { method: 'full' }, { zeroMoeHooked: false });
    const hooked = stepOf(example, { method: 'full' }, { zeroMoeHooked: true });
    expect(leaf).toBeLessThan(hooked / 2);
  });

  it('marking the sparse MoE blocks ZeRO-3 leaves never slows a step', () => {
    fc.assert(
      fc.property(
        fc.record({
          ...runArb,
          model: fc.constantFrom(...moeModels),
          method: fc.constantFrom('full', 'lora'),
        }),
        (c) => {
          const flags = { method: c.method };
          const leaf = stepOf(c, flags, { zeroMoeHooked: false });
          const hooked = stepOf(c, flags, { zeroMoeHooked: true });
          expect(leaf).toBeLessThanOrEqual(hooked * (1 + TOLERANCE));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('LoRA on more linears (more hooked modules) never shortens a ZeRO-3 step', () => {
    const fewer: LoraTarget[] = ['q', 'v'];
    const more: LoraTarget[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
    fc.assert(
      fc.property(
        fc.record({
          ...runArb,
          model: fc.constantFrom(...models),
          zeroMoeHooked: fc.boolean(),
        }),
        (c) => {
          const time = { zeroMoeHooked: c.zeroMoeHooked };
          const a = stepOf(c, { method: 'lora', 'lora-targets': fewer.join(',') }, time);
          const b = stepOf(c, { method: 'lora', 'lora-targets': more.join(',') }, time);
          expect(b).toBeGreaterThanOrEqual(a * (1 - TOLERANCE));
        },
      ),
      { numRuns: 60 },
    );
  });
});
