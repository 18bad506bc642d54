// Synthetic plans for UI tests: fixed numbers, so frames do not move when the planner's models change.
import type { Plan, PlanResult } from '../../src/core/plan/index.js';
import type { Breakdown } from '../../src/core/memory/index.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { scenarioSchema, type Scenario } from '../../src/schema/scenario.js';

const GiB = 2 ** 30;
const METHODS = ['lora', 'qlora', 'full'] as const;
const GPUS = [
  { id: 'rtx-4090', name: 'NVIDIA GeForce RTX 4090', gib: 24 },
  { id: 'a100-80gb', name: 'NVIDIA A100 80GB', gib: 80 },
] as const;

export function breakdown(g: number): Breakdown {
  return {
    weights: 8 * g,
    quantConstants: 0,
    adapters: 0.1 * g,
    masterWeights: 0,
    gradients: 0.1 * g,
    optimizer: 0.4 * g,
    activations: 5 * g,
    logits: 1 * g,
    kvCache: 0,
    buffers: 0.4 * g,
    overhead: 1 * g,
  };
}

/** Plan number i (1-based): method, GPU and optimizer cycle so filters have something to do. */
export function fakePlan(i: number): Plan {
  const method = METHODS[i % 3]!;
  const gpu = GPUS[i % 2]!;
  const optimizer = i % 4 === 0 ? 'adamw-8bit' : 'adamw';
  const b = breakdown(GiB);
  const device = Object.values(b).reduce((a, x) => a + x, 0);
  const hours = 2 + ((i * 7) % 11) / 2;
  return {
    id: `${method}/bf16/${optimizer}/mb1/owned:${gpu.id}x1#${i}`,
    rank: i,
    onFront: i % 5 === 1,
    variants: 0,
    choices: {
      method,
      weights: method === 'qlora' ? 'nf4' : 'bf16',
      doubleQuant: false,
      compute: 'bf16',
      optimizer,
      checkpointing: 'selective',
      attention: 'flash',
      microBatch: 1,
      gradAccum: 16,
      globalBatch: 16,
      zero: 0,
      offload: 'none',
      tp: 1,
      pp: 1,
      dp: 1,
      framework: 'hf',
      engine: 'hf-trainer',
    },
    hardware: {
      kind: 'owned',
      gpuId: gpu.id,
      gpuName: gpu.name,
      gpus: 1,
      nodes: 1,
      gpusPerNode: 1,
      offerId: null,
      provider: null,
      usdPerGpuHour: null,
      powerLimitFraction: 1,
      powerLimitW: 450,
    },
    memory: {
      deviceBytes: device,
      allocatedBytes: device - GiB,
      reservedBytes: device - 0.5 * GiB,
      capacityBytes: gpu.gib * GiB,
      headroomBytes: gpu.gib * GiB - device,
      hostBytesPerGpu: 0,
      peakPhase: 'backward',
      breakdown: b,
    },
    hostRam: {
      perNodeBytes: 26 * GiB,
      offloadBytes: 0,
      pinnedBytes: 0,
      loadingBytes: 26 * GiB,
      efficientLoading: true,
      limitBytes: 64 * GiB,
    },
    quality: {
      tier: method === 'full' ? 'lossy' : 'near',
      items: [
        {
          technique: method,
          tier: method === 'full' ? 'lossy' : 'near',
          reason: 'test',
          source: 'test',
        },
      ],
    },
    power: {
      gpuWatts: 450,
      wallWatts: 700 + (i % 3) * 50,
      perCircuit: [{ circuit: 'us-120v-15a#1', loadW: 700 + (i % 3) * 50, limitW: 1440 }],
    },
    time: {
      tokensPerSecond: 1000 - i,
      hours,
      stepSeconds: 2,
      tokensPerSecondPerGpu: 1000 - i,
      mfu: 0.4,
      bound: 'compute',
      phases: [{ phase: 'forward', seconds: 1 }],
    },
    cost: { usd: i * 0.25, rentUsd: 0, energyUsd: i * 0.25, purchaseUsd: 0, amortisedUsd: 0 },
    slowdown: hours / 2,
    slowdownFactors: [{ factor: 1.05, why: 'selective recomputation', source: 'test' }],
    options: { ...defaultOptions(method), optimizer },
  };
}

export function fakeResult(n: number, name = 'Test scenario'): PlanResult {
  const plans = Array.from({ length: n }, (_, i) => fakePlan(i + 1));
  return {
    schemaVersion: 1,
    scenario: { name, model: 'llama-2-13b', job: 'fine-tune', rank: 'cost' },
    model: { id: 'llama-2-13b', params: 13e9 },
    fits: n > 0,
    plans,
    front: plans.filter((p) => p.onFront),
    pruned: [
      { code: 'oom', count: 20088 },
      { code: 'circuit-over', count: 12 },
    ],
    searched: {
      candidates: 28080,
      feasible: n,
      distinctPlans: n,
      configurations: 9360,
      memoryEvaluations: 100,
    },
    fastestHours: 2,
    largest: null,
    nearestFixes: [],
    engines: [],
  };
}

export const scenario: Scenario = scenarioSchema.parse({
  name: 'Test scenario',
  model: 'llama-2-13b',
  job: { kind: 'fine-tune', methods: ['full', 'lora', 'qlora'] },
  hardware: { owned: [{ gpu: 'rtx-4090', count: 1 }], counts: { min: 1, max: 1 } },
  power: { circuits: ['us-120v-15a'] },
});
