// Serving plans whose weights no published checkpoint holds (plan/made-weights.ts): marked as weights to make,
// their one-off quantize GPU-hours in the cost, and behind existing weights in near-ties.
import { describe, expect, it } from 'vitest';
import {
  madeWeightsOf,
  quantizeGpuHours,
  quantizerHostBytes,
} from '../../src/core/plan/made-weights.js';
import { plan, type Plan } from '../../src/core/plan/index.js';
import { paramCounts } from '../../src/core/model/params.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { scenarioSchema, type Scenario } from '../../src/schema/scenario.js';
import { techniqueOf } from '../../src/ui/plan-text.js';

const serve = (model: string, extra: Record<string, unknown> = {}): Scenario =>
  scenarioSchema.parse({
    name: 'made',
    model,
    job: { kind: 'inference', context: 8192, promptTokens: 4096, concurrency: 64, ...extra },
    hardware: { owned: [{ gpu: 'h100-sxm', count: 4 }], counts: { min: 4, max: 4 } },
  });

describe('quantize GPU-hours', () => {
  it("is llm-compressor's A100 guide figure for an 8B model, scaled by parameters", () => {
    // docs/guides/runtime.md: Meta-Llama-3-8B-Instruct (8.03B) on one A100, AWQ ~30 min, RTN W+A ~20 min.
    expect(quantizeGpuHours('int4', 8.03e9)).toBeCloseTo(0.5, 6);
    expect(quantizeGpuHours('nvfp4', 8.03e9)).toBeCloseTo(20 / 60, 6);
    // DeepSeek-V3's 671B: 671 / 8.03 x 0.5 = 41.8 h, under the 48 A100-hours llm-compressor's DeepSeek-R1 GPTQ
    // example states (examples/quantizing_moe/deepseek_r1_example.py): the rule does not over-charge.
    const h = quantizeGpuHours('int4', paramCounts(resolveModel('deepseek-v3')).total);
    expect(h).toBeGreaterThan(48 * 0.8);
    expect(h).toBeLessThan(48);
  });
});

describe('which weights are made', () => {
  const arch = (id: string) => resolveModel(id);
  const made = (id: string, w: Parameters<typeof madeWeightsOf>[2], extra = {}) =>
    madeWeightsOf(arch(id), serve(id, extra), w, paramCounts(arch(id)).total);

  it('a published checkpoint, the native format or a format the engine makes as it loads is not made', () => {
    expect(made('llama-3.1-8b', 'int4')).toBeNull(); // hugging-quants AWQ
    expect(made('deepseek-v3', 'fp8')).toBeNull(); // ships block FP8
    expect(made('glm-4.5-air', 'fp8')).toBeNull(); // --quantization fp8 on the 16-bit repository
    expect(made('glm-4.5-air', 'bf16')).toBeNull();
    // Qwen's own Qwen2.5-Coder-7B-Instruct-GGUF, found under the alias the user names (not the base's lmstudio copy).
    expect(made('Qwen/Qwen2.5-Coder-7B-Instruct', 'q4_k_m')).toBeNull();
    expect(made('Qwen/Qwen2.5-Coder-7B-Instruct', 'q5_k_m')).toMatchObject({
      quantizer: 'llama-quantize',
    });
  });

  it('an AWQ copy nobody publishes is made with llm-compressor, a GGUF with llama.cpp on the CPU', () => {
    const m = made('deepseek-v3', 'int4')!;
    expect(m.quantizer).toBe('llm-compressor');
    expect(m.gpuHours).toBeGreaterThan(40);
    expect(made('glm-4.5-air', 'q5_k_m')).toMatchObject({
      quantizer: 'llama-quantize',
      gpuHours: 0,
    });
  });

  it('is not made when the scenario says the checkpoint exists', () => {
    expect(made('deepseek-v3', 'int4', { haveCheckpoints: ['int4'] })).toBeNull();
  });
});

describe('a GGUF type a published checkpoint holds is searched beside the default ones', () => {
  it("Gemma-3-12B on a 12 GB RTX 3060: Google's QAT Q4_0 GGUF, published, ahead of a Q4_K_M to make", () => {
    const s = scenarioSchema.parse({
      name: 'Gemma-3-12B on a 12 GB card',
      model: 'gemma-3-12b-it',
      job: { kind: 'inference', context: 8192, promptTokens: 2048, concurrency: 1 },
      hardware: { owned: [{ gpu: 'rtx-3060-12gb', count: 1 }], counts: { min: 1, max: 1 } },
      rank: 'time',
    });
    const plans = plan({ ...planInputOf('gemma.yaml', s), top: 40 }).plans;
    // catalogs/checkpoints.json: google/gemma-3-12b-it-qat-q4_0-gguf (q4_0), no published Q4_K_M of it.
    expect(plans[0]!.choices.weights).toBe('q4_0');
    expect(plans[0]!.choices.engine).toBe('llama.cpp');
    expect(plans[0]!.choices.weightsToMake).toBeUndefined();
    expect(plans.some((p) => p.choices.weights === 'q4_k_m')).toBe(true);
  });

  it('a model without a published Q4_0 is not searched in it', () => {
    const s = scenarioSchema.parse({ ...serve('llama-3.1-8b'), search: {} });
    expect(
      plan({ ...planInputOf('l.yaml', s), top: 400 }).plans.some(
        (p) => p.choices.weights === 'q4_0',
      ),
    ).toBe(false);
  });
});

describe('plans on weights to make', () => {
  const b200 = (extra: Record<string, unknown> = {}) =>
    scenarioSchema.parse({
      name: 'DeepSeek-V3 on 8x B200 for 256 users',
      model: 'deepseek-v3',
      job: {
        kind: 'inference',
        context: 8192,
        promptTokens: 4096,
        concurrency: 256,
        outputTokens: 100_000_000,
        ...extra,
      },
      hardware: { owned: [{ gpu: 'b200', count: 8 }], gpusPerNode: 8, counts: { min: 8, max: 8 } },
    });
  const run = (s: Scenario, top = 60) => plan({ ...planInputOf('b200.yaml', s), top }).plans;
  const isMade = (p: Plan) => p.choices.weightsToMake !== undefined;

  it('DeepSeek-V3 by cost: the published NVFP4, then the native FP8, rank ahead of the AWQ copy to make', () => {
    const plans = run(b200(), 400);
    // nvidia/DeepSeek-V3-0324-FP4 (catalogs/checkpoints.json) is published: no quantize share.
    expect(plans[0]!.choices.weights).toBe('nvfp4');
    expect(isMade(plans[0]!)).toBe(false);
    const fp8 = plans.findIndex((p) => p.choices.weights === 'fp8');
    expect(fp8).toBeGreaterThan(0);
    expect(isMade(plans[fp8]!)).toBe(false);
    expect(plans.findIndex(isMade)).toBeGreaterThan(fp8);
    const made = plans.find(isMade)!;
    // Its quantize share is in the cost and said in the notes and the table.
    expect(made.cost.quantizeUsd!).toBeGreaterThan(0);
    expect(made.cost.usd).toBeGreaterThan(made.cost.quantizeUsd!);
    expect(
      made.notes?.some((n) => /no published checkpoint of deepseek-ai\/DeepSeek-V3/.test(n)),
    ).toBe(true);
    expect(techniqueOf(made)).toMatch(/^inference \w+( \w+)? \(quantize first\), /);
  });

  it('with the checkpoints said to exist, a 4-bit plan is ranked on its serving cost alone', () => {
    const plans = run(b200({ haveCheckpoints: ['int4', 'nvfp4', 'int8'] }), 5);
    // NVFP4 on a B200: its prompts run on FP4 tensor cores, where int4 (Marlin) runs at the 16-bit rate.
    expect(plans[0]!.choices.weights).toBe('nvfp4');
    expect(plans.some(isMade)).toBe(false);
    expect(plans[0]!.cost.quantizeUsd).toBeUndefined();
  });

  it('a made plan does not win a near-tie with weights that exist, even where it is cheaper', () => {
    // Ranked by wall power: every plan at one power cap draws the same watts, a tie; the int4 copy to make (its
    // AWQ GPU-hours priced in) is cheaper than some FP8 plans at that cap, yet ranks after all of them.
    const plans = plan({
      ...planInputOf('glm.yaml', {
        ...serve('glm-4.5-air'),
        rank: 'power',
        search: { weights: ['int4', 'fp8'] },
      }),
      top: 40,
    }).plans;
    const watts = plans[0]!.power.wallWatts;
    const tie = plans.filter((p) => p.power.wallWatts <= watts * 1.01);
    const firstMade = tie.findIndex(isMade);
    expect(firstMade).toBeGreaterThan(0);
    expect(tie.slice(firstMade).every(isMade)).toBe(true);
    const cheapestMade = Math.min(...tie.filter(isMade).map((p) => p.cost.usd));
    expect(tie.slice(0, firstMade).some((p) => p.cost.usd > cheapestMade)).toBe(true);
  });
});

describe('"x fastest" of a plan on weights to make', () => {
  // GLM-4.5-Air on 4x H100 in int4 (an AWQ copy to make, about 6.9 GPU-hours) or bf16 (its own weights), ranked by
  // time: the int4 plans serve faster, but not once their making is counted, so they rank after the bf16 ones.
  const result = (extra: Record<string, unknown> = {}) =>
    plan({
      ...planInputOf('glm.yaml', {
        ...serve('glm-4.5-air'),
        rank: 'time',
        search: { weights: ['int4', 'bf16'] },
        ...extra,
      }),
      top: 40,
    });
  // The hours a plan ranks on by time: serving hours plus its weights' making over its GPUs.
  const rankedHours = (p: Plan) =>
    p.time.hours + (p.choices.weightsToMake?.gpuHours ?? 0) / p.hardware.gpus;

  it('divides the hours the ranking counts, making included, by the fastest of them', () => {
    const r = result();
    const made = r.plans.filter((p) => p.choices.weightsToMake !== undefined);
    expect(made.length).toBeGreaterThan(0);
    expect(made[0]!.choices.weightsToMake!.gpuHours).toBeGreaterThan(1);
    expect(made[0]!.time.hours).toBeLessThan(r.plans[0]!.time.hours);
    expect(r.plans[0]!.choices.weightsToMake).toBeUndefined();
    // The first plan is the fastest or within a near-tie of it (a tie goes to a plan well ahead on cost).
    expect(r.plans[0]!.slowdown).toBeLessThanOrEqual(1.01);
    for (const p of [...r.plans, ...r.front])
      expect(
        (p.slowdown * r.fastestHours!) / rankedHours(p),
        `${p.id} ${p.slowdown} ${p.time.hours} ${p.hardware.gpus} ${JSON.stringify(p.choices.weightsToMake)}`,
      ).toBeCloseTo(1, 9);
    expect(Math.min(...r.plans.map((p) => p.slowdown))).toBeCloseTo(1, 9);
    // Ranked by time, the column never falls by more than a near-tie (the tie-breaks reorder within 1%).
    r.plans
      .slice(1)
      .forEach((p, i) => expect(p.slowdown).toBeGreaterThan(r.plans[i]!.slowdown * 0.99));
  });

  it('limits.maxSlowdown caps the same figure', () => {
    const r = result({ limits: { maxSlowdown: 1.5 } });
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans)
      expect(rankedHours(p) / r.fastestHours!).toBeLessThanOrEqual(1.5 + 1e-12);
  });
});

describe('a GGUF made on the CPU', () => {
  it("counts no hours or cost, and its note says the CPU's wall time is not counted", () => {
    const r = plan({
      ...planInputOf('glm.yaml', { ...serve('glm-4.5-air'), search: { weights: ['q5_k_m'] } }),
      top: 5,
    });
    const made = r.plans.find((p) => p.choices.weightsToMake?.quantizer === 'llama-quantize')!;
    expect(made.choices.weightsToMake!.gpuHours).toBe(0);
    expect(made.cost.quantizeUsd ?? 0).toBe(0);
    expect(made.notes!.find((n) => /no published checkpoint/.test(n))).toMatch(
      /llama-quantize on the CPU, whose wall time is not counted in the hours or the cost/,
    );
  });
});

describe("the quantizer's host RAM", () => {
  const glm = resolveModel('glm-4.5-air');
  const params = paramCounts(glm).total;

  it("is llm-compressor's whole 16-bit model on the CPU; llama.cpp's tools memory-map", () => {
    // docs/guides/memory.md: CPU requirement = parameters x 2 bytes (Meta-Llama-3-8B ~16 GB).
    const m = madeWeightsOf(glm, serve('glm-4.5-air'), 'int4', params)!;
    expect(quantizerHostBytes(m, glm, params)).toBe(2 * params);
    const gguf = madeWeightsOf(glm, serve('glm-4.5-air'), 'q5_k_m', params)!;
    expect(quantizerHostBytes(gguf, glm, params)).toBe(0);
  });

  const ramNote = (hostRamGiB?: number) => {
    const s = serve('glm-4.5-air');
    const scenario = scenarioSchema.parse({
      ...s,
      hardware: { ...s.hardware, ...(hostRamGiB ? { hostRamGiB } : {}) },
      search: { weights: ['int4'] },
    });
    const made = plan({ ...planInputOf('glm.yaml', scenario), top: 5 }).plans.find(
      (p) => p.choices.weightsToMake !== undefined,
    )!;
    return made.notes!.find((n) => /no published checkpoint/.test(n))!;
  };

  it('a plan whose node has less host RAM than llm-compressor holds says to make the weights elsewhere', () => {
    // GLM-4.5-Air's ~110B parameters in bf16: ~205 GiB, over a 128 GiB node, under 4 H100s' default 640 GiB.
    expect(ramNote(128)).toMatch(
      /llm-compressor holds the whole 16-bit model in host RAM \(20\d GiB, its memory guide\), more than the 128 GiB/,
    );
    expect(ramNote()).not.toMatch(/host RAM/);
  });
});
