/**
 * ZeRO-3 moves every parameter over the data-parallel links each pass (all-gathers) and every gradient back
 * (reduce-scatters), whether they overlap the GPU's work, the host's hooks or neither (overlap_comm false, a
 * per-expert loop): whatever the configuration, a slower link can only lengthen a step, never shorten it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const models = ['llama-3.1-8b', 'qwen2.5-7b', 'mixtral-8x7b', 'qwen3-30b-a3b'].map((id) =>
  resolveModel(id),
);
const gpus = ['a100-80gb-sxm', 'h100-sxm'].map((id) => findGpu(id));

const caseArb = fc.record({
  model: fc.constantFrom(...models),
  gpu: fc.constantFrom(...gpus),
  method: fc.constantFrom('full', 'lora'),
  ranks: fc.constantFrom(8, 16, 32),
  batch: fc.constantFrom(1, 2),
  seq: fc.constantFrom(512, 4096),
  checkpointing: fc.constantFrom('none', 'full'),
  gradAccum: fc.constantFrom(1, 8),
  serialComm: fc.boolean(),
  moeLoop: fc.boolean(),
  zeroMoeHooked: fc.boolean(),
  zeroAutoBuckets: fc.boolean(),
  fast: fc.double({ min: 5, max: 400, noNaN: true }),
  slowdown: fc.double({ min: 1, max: 50, noNaN: true }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer C> ? C : never;

function stepOf(c: Case, link: Partial<TimeOptions>): number {
  const o = optionsFromFlags({
    framework: 'hf-deepspeed',
    method: c.method,
    zero: 3,
    gpus: c.ranks,
    batch: c.batch,
    seq: c.seq,
    checkpointing: c.checkpointing,
    attention: 'flash',
  });
  const t: TimeOptions = {
    ...defaultTimeOptions(c.ranks),
    gradAccum: c.gradAccum,
    gpusPerNode: 8,
    serialComm: c.serialComm,
    moeLoop: c.moeLoop,
    zeroMoeHooked: c.zeroMoeHooked,
    zeroAutoBuckets: c.zeroAutoBuckets,
    ...link,
  };
  return estimateTime(c.model, o, c.gpu, t).stepSeconds;
}

describe('a ZeRO-3 step over a slower link', () => {
  it('is never shorter when the network between nodes is slower', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const fast = stepOf(c, { interNodeGBps: c.fast });
        const slow = stepOf(c, { interNodeGBps: c.fast / c.slowdown });
        expect(slow).toBeGreaterThanOrEqual(fast * (1 - 1e-9));
      }),
      { numRuns: 100 },
    );
  });

  it('is never shorter over PCIe than over NVLink inside the node', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const nvlink = stepOf(c, { interconnect: 'nvlink', interNodeGBps: c.fast });
        const pcie = stepOf(c, { interconnect: 'pcie', interNodeGBps: c.fast });
        expect(pcie).toBeGreaterThanOrEqual(nvlink * (1 - 1e-9));
      }),
      { numRuns: 100 },
    );
  });

  it('grows with the network once the gathers bind (16 ranks on two nodes at a 100 Gb NIC a node)', () => {
    const c = fc.sample(caseArb, { seed: 1, numRuns: 1 })[0]!;
    const bound: Case = {
      ...c,
      model: models[0]!,
      gpu: gpus[1]!,
      method: 'full',
      ranks: 16,
      batch: 1,
      seq: 512,
      checkpointing: 'full',
      gradAccum: 1,
      serialComm: false,
      moeLoop: false,
      zeroMoeHooked: false,
      zeroAutoBuckets: false,
    };
    expect(stepOf(bound, { interNodeGBps: 12.5 / 8 })).toBeGreaterThan(
      stepOf(bound, { interNodeGBps: 50 }),
    );
  });
});
