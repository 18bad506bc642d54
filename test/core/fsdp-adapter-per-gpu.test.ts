/**
 * LoRA and QLoRA over FSDP FULL_SHARD: each rank still runs its own micro-batch through the whole model, and besides
 * that work it all-gathers every layer's frozen weights before the forward and again before the backward
 * (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py, `unshard` / `wait_for_unshard`, v2.6.0), receiving
 * (n - 1) / n of the replica each time (nccl-tests doc/PERFORMANCE.md, all-gather bus bandwidth), and
 * reduce-scatters the adapters' gradients alone. Sharding saves none of a rank's compute, and the adapters' optimizer
 * step is too small to pay for the gathers: per GPU, a sharded run is never faster than the same micro-batch on one
 * GPU, and within a node more ranks never speed a rank up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const models = ['llama-3.1-8b', 'qwen3-30b-a3b', 'llama-4-scout-17b-16e'].map((id) =>
  resolveModel(id),
);
const gpus = ['a100-80gb-sxm', 'h100-sxm'].map((id) => findGpu(id));

const caseArb = fc.record({
  model: fc.constantFrom(...models),
  gpu: fc.constantFrom(...gpus),
  method: fc.constantFrom('lora', 'qlora'),
  batch: fc.constantFrom(1, 2),
  seq: fc.constantFrom(1024, 4096),
  checkpointing: fc.constantFrom('none', 'full'),
  interconnect: fc.constantFrom('nvlink', 'pcie'),
  denseMoeLoop: fc.boolean(),
});

type Case = typeof caseArb extends fc.Arbitrary<infer C> ? C : never;

/** Tokens a second per GPU and the parameter-gather phase on `ranks` GPUs of one 8-GPU node. */
function run(c: Case, ranks: number): { perGpu: number; gather: number } {
  const o = optionsFromFlags({
    framework: 'hf-fsdp',
    method: c.method,
    'lora-targets': 'q,k,v,o',
    zero: ranks > 1 ? 3 : 0,
    gpus: ranks,
    batch: c.batch,
    seq: c.seq,
    checkpointing: c.checkpointing,
    attention: 'flash',
  });
  const t: TimeOptions = {
    ...defaultTimeOptions(ranks),
    gpusPerNode: 8,
    interconnect: c.interconnect,
    denseMoeLoop: c.denseMoeLoop,
  };
  const r = estimateTime(c.model, o, c.gpu, t);
  const gather = r.phases.find((p) => p.phase === 'parameter-gather')?.seconds ?? 0;
  return { perGpu: r.tokensPerSecondPerGpu, gather };
}

describe('adapters trained over FSDP FULL_SHARD, per GPU', () => {
  it('are never faster than the same micro-batch on one GPU', () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom(2, 4, 8), (c, ranks) => {
        expect(run(c, ranks).perGpu).toBeLessThanOrEqual(run(c, 1).perGpu * (1 + 1e-9));
      }),
      { numRuns: 60 },
    );
  });

  it('never speed up, and never gather less, as the node holds more ranks', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const two = run(c, 2);
        const four = run(c, 4);
        const eight = run(c, 8);
        expect(four.perGpu).toBeLessThanOrEqual(two.perGpu * (1 + 1e-9));
        expect(eight.perGpu).toBeLessThanOrEqual(four.perGpu * (1 + 1e-9));
        expect(four.gather).toBeGreaterThanOrEqual(two.gather * (1 - 1e-9));
        expect(eight.gather).toBeGreaterThanOrEqual(four.gather * (1 - 1e-9));
        expect(two.gather).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
  });
});
