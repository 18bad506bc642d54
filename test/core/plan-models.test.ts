// Hand-computed checks of the planner's cost, power, time, Pareto and candidate generators.
import { describe, expect, it } from 'vitest';
import { amortisedUsd, energyCostUsd, rentCostUsd } from '../../src/core/time/cost.js';
import { circuitOverWatts, nodeWallWatts, psuEfficiency } from '../../src/core/hardware/index.js';
import {
  gpuCounts,
  microBatches,
  shardings,
  tensorParallelisms,
} from '../../src/core/plan/index.js';
import type { Arch } from '../../src/core/model/index.js';

describe('cost', () => {
  it('rented = hours × GPUs × price', () => {
    // 10 h × 8 GPUs × $2.50 = $200
    expect(rentCostUsd(10, 8, 2.5)).toBe(200);
  });
  it('energy = kW × hours × PUE × $/kWh', () => {
    // 1,360 W × 10 h = 13.6 kWh × 1.0 × $0.16 = $2.176
    expect(energyCostUsd(10, 1360, 0.16, 1)).toBeCloseTo(2.176, 9);
  });
  it('amortisation is straight-line over years of hours', () => {
    // $1,752 over 1 year (8,760 h), used 100 h: $20
    expect(amortisedUsd(100, 1752, 1)).toBeCloseTo(20, 9);
  });
});

describe('power', () => {
  it('US 15 A circuit: 120 V × 15 A × 0.8 = 1,440 W continuous', () => {
    expect(120 * 15 * 0.8).toBe(1440);
    expect(circuitOverWatts(1, 1440, 0, [1440])).toBe(0);
    expect(circuitOverWatts(1, 1500, 0, [1440])).toBeCloseTo(60, 9);
  });
  it('4× RTX 3090 at 280 W + 200 W system on a Platinum PSU fits one 15 A circuit (Puget)', () => {
    // (4 × 280 + 200) / 0.92 = 1,434.8 W ≤ 1,440 W; at stock 350 W: (1,400 + 200) / 0.92 = 1,739 W, over by 299 W
    const eff = psuEfficiency('platinum', 120);
    expect(eff).toBe(0.92);
    expect(nodeWallWatts(4, 280, 200, eff)).toBeCloseTo(1434.78, 1);
    expect(circuitOverWatts(1, nodeWallWatts(4, 280, 200, eff), 0, [1440])).toBe(0);
    expect(circuitOverWatts(1, nodeWallWatts(4, 350, 200, eff), 0, [1440])).toBeCloseTo(299.1, 0);
  });
  it('places identical nodes on several circuits, whole nodes per circuit', () => {
    // 3 nodes of 1,000 W on two 1,920 W circuits: 1 + 1 fit, the third is over by 1,000 − 920 = 80 W
    expect(circuitOverWatts(3, 1000, 0, [1920, 1920])).toBeCloseTo(80, 9);
    expect(circuitOverWatts(2, 1000, 500, [1920, 2880])).toBe(0);
  });
});

describe('candidate generators', () => {
  const arch = { groups: [{ heads: 40, kvHeads: 40 }] } as unknown as Arch;
  it('tensor parallelism divides the count and the heads, within a node', () => {
    // 40 heads: 8 divides 40 (5 each); 16 is beyond one 8-GPU node
    expect(tensorParallelisms(8, arch, 8)).toEqual([1, 2, 4, 8]);
    expect(tensorParallelisms(6, arch, 8)).toEqual([1, 2]);
  });
  it('serving replicates KV heads over TP ranks beyond them (vLLM/SGLang num_kv_head_replicas); training does not', () => {
    // Qwen3-Next's full-attention layers: 16 query heads, 2 KV heads; vLLM's recipe serves it at TP 4.
    const gqa = { groups: [{ heads: 16, kvHeads: 2 }] } as unknown as Arch;
    expect(tensorParallelisms(4, gqa, 8)).toEqual([1, 2]);
    expect(tensorParallelisms(4, gqa, 8, undefined, true)).toEqual([1, 2, 4]);
    expect(tensorParallelisms(8, gqa, 8, undefined, true)).toEqual([1, 2, 4, 8]);
    // A multiple of the KV heads only: 3 KV heads over TP 2 would split a head.
    const odd = { groups: [{ heads: 24, kvHeads: 3 }] } as unknown as Arch;
    expect(tensorParallelisms(8, odd, 8, undefined, true)).toEqual([1]);
  });
  it('GPU counts: any count inside a node, whole nodes beyond', () => {
    expect(gpuCounts(1, 32, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 16, 24, 32]);
  });
  it('micro-batches never exceed the global batch', () => {
    expect(microBatches(4)).toEqual([1, 2, 4]);
  });
  it('sharding predicates: one rank shards only to offload or as ZeRO-2; LoRA over ranks only ZeRO-3', () => {
    expect(shardings('full', 1, 1, 1)).toEqual([
      { zero: 0, offload: 'none' },
      { zero: 2, offload: 'none' },
      { zero: 2, offload: 'optimizer' },
      { zero: 3, offload: 'optimizer' },
      { zero: 3, offload: 'optimizer+params' },
    ]);
    expect(shardings('qlora', 4, 1, 1).map((s) => s.zero)).toEqual([0, 3, 3, 3]);
    expect(shardings('lora', 1, 1, 1)).toEqual([
      { zero: 0, offload: 'none' },
      { zero: 2, offload: 'none' },
      { zero: 3, offload: 'optimizer' },
      { zero: 3, offload: 'optimizer+params' },
    ]);
    // With TP every stage is offered; which engine runs it is core/engines/engines.ts's rule (torchtitan: FSDP + TP).
    expect(shardings('full', 2, 2, 1).map((s) => s.zero)).toEqual([0, 1, 2, 3, 2, 3, 3]);
  });
});
