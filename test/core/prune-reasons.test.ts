// Every prune reason the planner has is counted, each triggered by a small scenario built for it.
import { describe, expect, it } from 'vitest';
import { plan, REASONS, type ReasonCode } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema, type ScenarioInput } from '../../src/schema/scenario.js';

const BASE: ScenarioInput = {
  name: 'prune',
  model: 'qwen2.5-0.5b',
  job: { kind: 'fine-tune', methods: ['lora'], seq: 512, globalBatch: 4, datasetTokens: 1e6 },
  hardware: { owned: [{ gpu: 'rtx-4090', count: 1 }], counts: { min: 1, max: 1 } },
  search: {
    optimizers: ['adamw'],
    checkpointing: ['none'],
    attention: ['sdpa'],
    microBatches: [1],
  },
};

function pruned(over: (s: ScenarioInput) => ScenarioInput) {
  const scenario = scenarioSchema.parse(over(structuredClone(BASE)));
  const r = plan(planInputOf('test.yaml', scenario));
  const counts = Object.fromEntries(r.pruned.map((p) => [p.code, p.count])) as Partial<
    Record<ReasonCode, number>
  >;
  return { r, counts };
}

const hw = (s: ScenarioInput, h: object): ScenarioInput => ({
  ...s,
  hardware: { ...s.hardware, ...h },
});

/** One scenario per reason that prunes at least one candidate for it. */
const CASES: Record<ReasonCode, (s: ScenarioInput) => ScenarioInput> = {
  oom: (s) => ({ ...s, model: 'llama-2-70b', job: { ...s.job, methods: ['full'] } as never }),
  'host-ram': (s) =>
    hw(
      {
        ...s,
        job: { ...s.job, methods: ['full'] } as never,
        search: { ...s.search, offload: ['optimizer'], zero: [2] },
      },
      { hostRamGiB: 1 },
    ),
  'not-enough-gpus': (s) => hw(s, { counts: { min: 2, max: 2 } }),
  'over-max-gpus': (s) => ({
    ...hw(s, { owned: [{ gpu: 'rtx-4090', count: 4 }], counts: { min: 1, max: 4 } }),
    limits: { maxGpus: 2 },
  }),
  'partial-node': (s) =>
    hw(s, {
      owned: [],
      rent: { offers: ['aws-a100-40gb-sxm-on-demand-8x'] },
      counts: { min: 2, max: 2 },
    }),
  'no-flash-attention': (s) => ({
    ...hw(s, { owned: [{ gpu: 't4', count: 1 }] }),
    search: { ...s.search, attention: ['flash'] },
  }),
  // gpt-oss's flash attention on the HF engines runs on Hopper only (engines/hf/flash-kernels.ts).
  'no-model-flash': (s) => ({
    ...hw(s, { owned: [{ gpu: 'a100-80gb-sxm', count: 1 }] }),
    model: 'gpt-oss-20b',
    search: { ...s.search, engines: ['hf-trainer'], attention: ['flash'] },
  }),
  'no-fp8': (s) => ({
    ...hw(s, { owned: [{ gpu: 'rtx-3090', count: 1 }] }),
    // fp8 checkpoints are served (vLLM, transformers), not trained on by the engines here.
    job: { kind: 'inference', context: 512, concurrency: 1, outputTokens: 1e5 },
    search: { ...s.search, weights: ['fp8'] },
  }),
  // bitsandbytes' 8-bit optimizer step has no MPS kernel (engines/optimizers.ts notOnApple).
  'no-quant-kernels': (s) => ({
    ...hw(s, { owned: [{ gpu: 'apple-m4-max-128gb', count: 1 }] }),
    search: { ...s.search, optimizers: ['adamw-8bit'] },
  }),
  // LitGPT's quantized path on an Apple GPU: Lightning's BitsandbytesPrecision runs on CUDA only.
  'no-apple-weights': (s) => ({
    ...hw(s, { owned: [{ gpu: 'apple-m4-max-128gb', count: 1 }] }),
    job: { ...s.job, methods: ['qlora'] } as never,
    // With --quantize LitGPT steps bitsandbytes' PagedAdamW whatever the config names (rule litgpt-quantize-paged-adamw).
    search: { ...s.search, engines: ['litgpt'], optimizers: ['paged-adamw'] },
  }),
  // Liger's Triton kernels on an Apple GPU: no Triton wheel for macOS.
  'no-apple-kernels': (s) => ({
    ...hw(s, { owned: [{ gpu: 'apple-m4-max-128gb', count: 1 }] }),
    search: { ...s.search, engines: ['hf-trainer'] },
  }),
  'circuit-over': (s) => ({
    ...hw(s, { owned: [{ gpu: 'rtx-4090', count: 8 }], counts: { min: 8, max: 8 } }),
    job: { ...s.job, globalBatch: 8 } as never,
    power: { circuits: ['us-120v-15a'] },
  }),
  'over-budget': (s) => ({
    ...s,
    power: { electricityUsdPerKwh: 1 },
    limits: { budgetUsd: 0.0001 },
  }),
  'over-deadline': (s) => ({ ...s, limits: { deadlineHours: 1e-6 } }),
  quality: (s) => ({ ...s, job: { ...s.job, methods: ['qlora'] } as never, quality: 'exact' }),
  'no-engine': (s) => ({ ...s, search: { ...s.search, engines: ['hf-trainer'], zero: [3] } }),
  // Unsloth's native FSDP2 (its profile's zeroUndocumented) on two GPUs, without search.undocumented.
  undocumented: (s) => ({
    ...hw(s, { owned: [{ gpu: 'rtx-4090', count: 2 }], counts: { min: 2, max: 2 } }),
    search: { ...s.search, engines: ['unsloth'], zero: [3] },
  }),
  slo: (s) => ({
    ...s,
    job: { kind: 'inference', context: 2048, concurrency: 8, slo: { tpotMs: 1 } },
    search: {},
  }),
  'too-slow': (s) => ({
    ...s,
    job: { ...s.job, methods: ['lora', 'qlora'] } as never,
    search: { ...s.search, checkpointing: ['none', 'full'] },
    limits: { maxSlowdown: 1 },
  }),
};

describe('prune reasons', () => {
  it('the cases cover every reason', () => {
    expect(Object.keys(CASES).sort()).toEqual([...REASONS].sort());
  });
  for (const code of REASONS)
    it(`counts ${code}`, () => {
      const { r, counts } = pruned(CASES[code]);
      expect(counts[code] ?? 0).toBeGreaterThan(0);
      // Every candidate is either feasible or pruned for exactly one reason.
      const total = r.pruned.reduce((a, p) => a + p.count, 0);
      expect(total + r.searched.feasible).toBe(r.searched.candidates);
    });

  it("no-engine: the search loop's GPU gates and the model side's refusals add up", () => {
    // SGLang below its compute-capability floor (the loop's gate on the T4) beside the model side's own no-engine
    // refusals (made before the loop, the same on either GPU).
    const { r, counts } = pruned((s) => ({
      ...hw(s, { owned: [{ gpu: 't4', count: 1 }] }),
      model: 'llama-3.1-8b',
      job: { kind: 'inference', context: 2048, promptTokens: 1024, concurrency: 4 },
      search: { engines: ['sglang', 'vllm'] },
    }));
    const gated = pruned((s) => ({
      ...hw(s, { owned: [{ gpu: 'a10', count: 1 }] }),
      model: 'llama-3.1-8b',
      job: { kind: 'inference', context: 2048, promptTokens: 1024, concurrency: 4 },
      search: { engines: ['sglang', 'vllm'] },
    }));
    // The A10 passes SGLang's floor: its no-engine count is the model side's alone; the T4 adds the loop's.
    expect(counts['no-engine'] ?? 0).toBeGreaterThan(gated.counts['no-engine'] ?? 0);
    const total = r.pruned.reduce((a, p) => a + p.count, 0);
    expect(total + r.searched.feasible).toBe(r.searched.candidates);
  });

  it("AMD GPUs: the planner reads the engines' ROCm kernel tables, as estimate --gpu does", () => {
    // vLLM on AMD GPUs: no int8 W8A8, FP8 W8A8 on gfx942 (engines/vllm/kernels.ts).
    const serve = (weights: string[]) =>
      pruned((s) => ({
        ...hw(s, { owned: [{ gpu: 'mi300x', count: 1 }] }),
        model: 'llama-3.1-8b',
        job: { kind: 'inference', context: 2048, concurrency: 1, outputTokens: 1e5 },
        search: { engines: ['vllm'], weights } as never,
      }));
    const int8 = serve(['int8']);
    expect(int8.r.plans).toHaveLength(0);
    expect(int8.counts['no-quant-kernels']).toBeGreaterThan(0);
    // AWQ/GPTQ int4 runs there (estimate models it) but is not searched: its AMD kernels are not timed apart.
    const int4 = serve(['int4']);
    expect(int4.r.plans).toHaveLength(0);
    expect(int4.counts['no-quant-kernels']).toBeGreaterThan(0);
    const fp8 = serve(['fp8']);
    expect(fp8.r.plans.length).toBeGreaterThan(0);
    expect(fp8.counts['no-fp8'] ?? 0).toBe(0);
  });

  it('over-max-gpus: counts beyond limits.maxGpus are counted, not silently dropped', () => {
    const { r, counts } = pruned(CASES['over-max-gpus']);
    expect(r.plans.every((p) => p.hardware.gpus <= 2)).toBe(true);
    const unlimited = pruned((s) =>
      hw(s, { owned: [{ gpu: 'rtx-4090', count: 4 }], counts: { min: 1, max: 4 } }),
    );
    expect(r.searched.candidates).toBe(unlimited.r.searched.candidates);
    // Exactly the candidates with 3 or 4 GPUs: those a search capped at 2 GPUs does not have.
    const capped = pruned((s) =>
      hw(s, { owned: [{ gpu: 'rtx-4090', count: 4 }], counts: { min: 1, max: 2 } }),
    );
    expect(counts['over-max-gpus']).toBe(
      unlimited.r.searched.candidates - capped.r.searched.candidates,
    );
  });
});
