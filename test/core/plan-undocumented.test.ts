// Paths an engine's release runs but its guides do not describe are left out of the default search (pruned as
// `undocumented`), and back with search.undocumented; a writer-scoped rule keeps 4-bit QLoRA of a fused-expert MoE
// off Unsloth's plans while estimate still models it.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema, type ScenarioInput } from '../../src/schema/scenario.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const run = (s: ScenarioInput) => plan(planInputOf('test.yaml', scenarioSchema.parse(s)));
const prunedFor = (r: ReturnType<typeof run>, code: string) =>
  r.pruned.find((p) => p.code === code)?.count ?? 0;
const undocumented = (engine: string, zero: number) =>
  (ENGINE_PROFILES as Record<string, { zeroUndocumented?: readonly number[] }>)[
    engine
  ]!.zeroUndocumented?.includes(zero) === true;

// The review's case: a full fine-tune of Llama-3.1-8B at 4k on 8x H100, where Unsloth's native FSDP2 ranks first.
const FULL_8B: ScenarioInput = {
  name: 'full-8b',
  model: 'llama-3.1-8b',
  job: { kind: 'fine-tune', methods: ['full'], seq: 4096, globalBatch: 64, datasetTokens: 1e8 },
  hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 8, max: 8 } },
  rank: 'time',
  search: {
    optimizers: ['adamw'],
    checkpointing: ['none'],
    attention: ['sdpa', 'flash'],
    microBatches: [2],
    engines: ['unsloth', 'torchtitan'],
  },
};

describe('undocumented paths', () => {
  it('are pruned by default and ranked with search.undocumented', () => {
    const off = run(FULL_8B);
    expect(off.plans.length).toBeGreaterThan(0);
    expect(off.plans.some((p) => undocumented(p.choices.engine, p.choices.zero))).toBe(false);
    expect(prunedFor(off, 'undocumented')).toBeGreaterThan(0);
    const on = run({ ...FULL_8B, search: { ...FULL_8B.search, undocumented: true } });
    expect(prunedFor(on, 'undocumented')).toBe(0);
    expect(on.plans.some((p) => undocumented(p.choices.engine, p.choices.zero))).toBe(true);
    // With the opt-in the undocumented path ranks first: it is what the default search leaves out.
    expect(undocumented(on.plans[0]!.choices.engine, on.plans[0]!.choices.zero)).toBe(true);
  });
});

// Pretraining-sized full fine-tune over 64 H100s on 8 machines: Unsloth's guides launch on one machine only.
const OVER_NODES: ScenarioInput = {
  name: 'full-7b-8-nodes',
  model: 'llama-2-7b',
  job: { kind: 'fine-tune', methods: ['full'], seq: 4096, globalBatch: 1024, datasetTokens: 1e10 },
  hardware: {
    owned: [{ gpu: 'h100-sxm', count: 64 }],
    gpusPerNode: 8,
    counts: { min: 8, max: 64 },
  },
  rank: 'time',
  search: {
    optimizers: ['adamw-8bit'],
    checkpointing: ['none'],
    attention: ['sdpa'],
    microBatches: [1],
    engines: ['unsloth', 'hf-deepspeed'],
  },
};

describe('an engine whose guides launch on one machine', () => {
  it('plans it on one machine, and over several only with search.undocumented', () => {
    expect(ENGINE_PROFILES.unsloth.oneMachineDocumented).toBe(true);
    // One machine's eight GPUs: Unsloth's DDP guide (torchrun --nproc_per_node) ranks first there.
    const one = run({
      ...OVER_NODES,
      hardware: { ...OVER_NODES.hardware, counts: { min: 8, max: 8 } },
    });
    expect(one.plans[0]!.choices.engine).toBe('unsloth');
    const off = run(OVER_NODES);
    expect(off.plans.some((p) => p.choices.engine === 'unsloth' && p.hardware.nodes > 1)).toBe(
      false,
    );
    expect(off.plans[0]!.hardware.nodes).toBe(8);
    expect(off.plans[0]!.choices.engine).toBe('hf-deepspeed');
    expect(prunedFor(off, 'undocumented')).toBeGreaterThan(0);
    const on = run({ ...OVER_NODES, search: { ...OVER_NODES.search, undocumented: true } });
    expect(on.plans.some((p) => p.choices.engine === 'unsloth' && p.hardware.nodes > 1)).toBe(true);
  });
});

const MOE: ScenarioInput = {
  name: 'moe-qlora',
  model: 'qwen3-30b-a3b',
  job: { kind: 'fine-tune', methods: ['qlora'], seq: 2048, globalBatch: 8, datasetTokens: 1e6 },
  hardware: { owned: [{ gpu: 'a100-80gb-sxm', count: 1 }], counts: { min: 1, max: 1 } },
  search: {
    optimizers: ['adamw-8bit'],
    checkpointing: ['full'],
    attention: ['sdpa'],
    microBatches: [1],
  },
};

describe('unsloth-moe-no-4bit', () => {
  it("the planner ranks no 4-bit QLoRA of a fused-expert MoE on Unsloth; a dense model's still ranks", () => {
    const moe = run({ ...MOE, search: { ...MOE.search, engines: ['unsloth'] } });
    expect(moe.plans).toHaveLength(0);
    expect(prunedFor(moe, 'no-engine')).toBeGreaterThan(0);
    const dense = run({
      ...MOE,
      model: 'llama-3.1-8b',
      search: { ...MOE.search, engines: ['unsloth'] },
    });
    expect(dense.plans.length).toBeGreaterThan(0);
    // Other engines still plan the MoE's QLoRA.
    expect(run(MOE).plans.length).toBeGreaterThan(0);
  });

  it('estimate still models it (the rule is about what vramplan writes)', () => {
    const flags = { method: 'qlora', framework: 'unsloth', seq: 2048, batch: 1 };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(o.weights).toBe('nf4');
    const e = buildEstimate(resolveModel('qwen3-30b-a3b'), o, findGpu('a100-80gb-sxm'));
    expect(e.perGpu.breakdown.weights).toBeGreaterThan(0);
  });
});
