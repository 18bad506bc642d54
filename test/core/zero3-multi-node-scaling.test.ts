/**
 * Data-parallel ranks added across nodes over a link no faster than the node's own: every rank still runs its own
 * micro-batches and moves at least as many bytes, through a ring with more steps, some of them over the network
 * (NCCL's tuner, time/nccl-ring.ts). Only the optimizer step shrinks with more ranks (ZeRO shards the states), so
 * the rest of a rank's step never gets shorter: the group's throughput grows at most linearly with its GPUs, beyond
 * what the smaller optimizer shard saves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimateTime,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
} from '../../src/core/time/index.js';
import { dataParallelLink } from '../../src/core/time/train-step.js';
import { ringLatencyAcrossNodes, NCCL_RING_HOP_SECONDS } from '../../src/core/time/nccl-ring.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const models = ['llama-3.1-8b', 'mixtral-8x7b', 'qwen3-30b-a3b'].map((id) => resolveModel(id));
const gpus = ['a100-80gb-sxm', 'a800-80gb-sxm', 'h100-sxm'].map((id) => findGpu(id));

const caseArb = fc.record({
  model: fc.constantFrom(...models),
  gpu: fc.constantFrom(...gpus),
  method: fc.constantFrom('full', 'lora'),
  zero: fc.constantFrom(2, 3),
  seq: fc.constantFrom(512, 4096),
  checkpointing: fc.constantFrom('none', 'full'),
  gradAccum: fc.constantFrom(1, 4),
  serialComm: fc.boolean(),
  moeLoop: fc.boolean(),
  zeroAutoBuckets: fc.boolean(),
  // GB/s per GPU between nodes: from a 10 Gb/s port shared by a node's eight GPUs to one 200 Gb/s NIC a GPU.
  link: fc.double({ min: 0.15, max: 25, noNaN: true }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer C> ? C : never;

/** A rank's step seconds less its optimizer step, on `ranks` GPUs eight to a node. */
function stepLessOptimizer(c: Case, ranks: number): number {
  const o = optionsFromFlags({
    framework: 'hf-deepspeed',
    method: c.method,
    zero: c.zero,
    gpus: ranks,
    batch: 1,
    seq: c.seq,
    checkpointing: c.checkpointing,
    attention: 'flash',
  });
  const t: TimeOptions = {
    ...defaultTimeOptions(ranks),
    gradAccum: c.gradAccum,
    gpusPerNode: 8,
    interNodeGBps: c.link,
    serialComm: c.serialComm,
    moeLoop: c.moeLoop,
    zeroMoeHooked: c.moeLoop,
    zeroAutoBuckets: c.zeroAutoBuckets,
  };
  const e = estimateTime(c.model, o, c.gpu, t);
  const optimizer = e.phases.find((p) => p.phase === 'optimizer')?.seconds ?? 0;
  return e.stepSeconds - optimizer;
}

describe('DeepSpeed ZeRO data parallelism across nodes', () => {
  it('never shortens a rank step beyond its optimizer shard (8 -> 16 -> 32 GPUs, 8 a node)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const one = stepLessOptimizer(c, 8);
        const two = stepLessOptimizer(c, 16);
        const four = stepLessOptimizer(c, 32);
        // The phases are rounded to four significant digits (estimate-time.ts): a rounding step of slack.
        expect(two).toBeGreaterThanOrEqual(one * (1 - 1e-3));
        expect(four).toBeGreaterThanOrEqual(two * (1 - 1e-3));
      }),
      { numRuns: 40 },
    );
  });
});

describe("NCCL's ring latency across nodes", () => {
  const { nvlink, net } = NCCL_RING_HOP_SECONDS;

  it('adds nothing inside one node', () => {
    expect(ringLatencyAcrossNodes('scatter', 8, 8, true)).toBe(0);
    expect(ringLatencyAcrossNodes('all-reduce', 4, 8, true)).toBe(0);
  });

  it("adds a reduce-scatter's further ring steps: 16 ranks on two nodes, 32 on four", () => {
    // 15 steps, one over the network, against one node's 7: 7 more NVLink steps and one network step.
    expect(ringLatencyAcrossNodes('scatter', 16, 8, true)).toBeCloseTo(7 * nvlink + net, 12);
    // 31 steps, three over the network: 21 more NVLink steps and three network steps.
    expect(ringLatencyAcrossNodes('scatter', 32, 8, true)).toBeCloseTo(21 * nvlink + 3 * net, 12);
  });

  it("adds an all-reduce's: 2 (n - 1) steps of which 2 nNodes cross (NCCL v2.20.5)", () => {
    // 30 steps, 4 over the network, against one node's 14: 12 more NVLink steps and four network steps.
    expect(ringLatencyAcrossNodes('all-reduce', 16, 8, true)).toBeCloseTo(
      12 * nvlink + 4 * net,
      12,
    );
  });

  it('grows with the nodes a group spans', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'scatter' | 'all-reduce'>('scatter', 'all-reduce'),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 32 }),
        fc.boolean(),
        (c, perNode, nodes, nvl) => {
          const a = ringLatencyAcrossNodes(c, perNode * nodes, perNode, nvl);
          const b = ringLatencyAcrossNodes(c, perNode * (nodes + 1), perNode, nvl);
          expect(b).toBeGreaterThan(a);
        },
      ),
    );
  });
});

describe("ZeRO-3's all-gathers hold the stream for their latency too", () => {
  it('each collective of the two gathering passes adds its latency where the gathers bind', () => {
    // Llama 3.1 8B, full, ZeRO-3 on 16 A100s over two nodes at a 10 Gb/s port a node: the gathers outlast the
    // compute, so what they add shows in full (plus the first unit's share, 1/layers of it).
    const o = optionsFromFlags({
      framework: 'hf-deepspeed',
      method: 'full',
      zero: 3,
      gpus: 16,
      batch: 1,
      seq: 512,
      checkpointing: 'full',
      attention: 'flash',
    });
    const t: TimeOptions = { ...defaultTimeOptions(16), gpusPerNode: 8, interNodeGBps: 1.25 / 8 };
    const m = modelFacts(resolveModel('llama-3.1-8b'));
    const r = gpuRates(findGpu('a100-80gb-sxm'), t);
    const w = { ...trainWork(m, o, t) };
    expect(w.zeroGathers).toBeGreaterThan(0);
    // Two passes issue the collectives: forward and the recompute (backward reuses the recompute's gathers).
    const passes = 2;
    const { latency } = dataParallelLink(w, r);
    const base = trainStep(w, r);
    const more = trainStep({ ...w, zeroGathers: w.zeroGathers + 1000 }, r);
    expect(more - base).toBeCloseTo(passes * 1000 * latency * (1 + 1 / w.layers), 9);
  });
});
