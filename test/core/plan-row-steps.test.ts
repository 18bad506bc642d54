// A training row's step kept by rates object (plan/row-step.ts): the offers of one GPU type at one node size and
// power level share a rates object (context.ts ratesOf), so a row's step is timed once for all of them. The search
// with its options sharing rates objects gives the same result as the search with every option on its own copy of
// its GPU, where no two share one and every step is timed (the exhaustive search).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hwTableOf, MAX_LEVELS, type Ctx } from '../../src/core/plan/context.js';
import { plan } from '../../src/core/plan/index.js';
import type { HardwareOption, PlanInput } from '../../src/core/plan/types.js';
import { stepsFor } from '../../src/core/plan/row-step.js';
import { UserError } from '../../src/io/errors.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, parseScenario, resolveHardware } from '../../src/io/load-scenario.js';

fc.configureGlobal({
  seed: Number(process.env.VRAMPLAN_FC_SEED ?? 20261121),
  interruptAfterTimeLimit: 60_000,
  markInterruptAsFailure: false,
  endOnFailure: true,
});

/** The plan input of a scenario file's text (the shipped catalogs). */
function inputOf(file: string, yaml: string): PlanInput {
  const scenario = parseScenario(file, yaml);
  const hw = resolveHardware(scenario);
  return {
    scenario,
    arch: resolveModel(scenario.model),
    hardware: hw.options,
    circuits: hw.circuits,
  };
}

/** `input` with every hardware option on its own copy of its GPU: no two options share a rates object. */
const unshared = (input: PlanInput): PlanInput => ({
  ...input,
  hardware: input.hardware.map((h) => ({ ...h, gpu: structuredClone(h.gpu) })),
});

/** Whether two of the options have the same GPU and node size (so the search shares rates objects between them). */
function sharesRates(hardware: readonly HardwareOption[]): boolean {
  const seen = new Set<string>();
  for (const h of hardware) {
    const key = `${h.gpu.id}|${h.nodeSize}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

const subset = <T>(xs: readonly T[]) =>
  fc.subarray([...xs], { minLength: 1 }).map((a) => `[${a.join(', ')}]`);

/** A small rented fine-tune or DPO search over a few GPU types and offer kinds. */
const specArb = fc
  .record({
    model: fc.constantFrom('qwen2.5-0.5b', 'qwen2.5-1.5b', 'llama-3.2-1b'),
    dpo: fc.boolean(),
    methods: subset(['full', 'lora', 'qlora']),
    seq: fc.constantFrom(512, 1024, 2048),
    globalBatch: fc.constantFrom(8, 16, 32),
    gpus: subset(['h100-sxm', 'a100-80gb-pcie', 'rtx-4090', 'l40s', 'rtx-3090']),
    kinds: subset(['on-demand', 'spot', 'community']),
    max: fc.integer({ min: 1, max: 4 }),
    rank: fc.constantFrom('cost', 'time'),
  })
  .map(
    (s) => `name: rates shared
model: ${s.model}
job:
  kind: fine-tune
${s.dpo ? '  objective: dpo\n' : ''}  methods: ${s.methods}
  seq: ${s.seq}
  globalBatch: ${s.globalBatch}
  datasetTokens: 2000000
hardware:
  rent:
    gpus: ${s.gpus}
    kinds: ${s.kinds}
  counts: { min: 1, max: ${s.max} }
rank: ${s.rank}
`,
  );

describe("a row's step kept by rates object", () => {
  it('options that share a rates object have the same GPU bytes (what the kept step reads of the option)', () => {
    const input = inputOf(
      'rent.yaml',
      'name: r\nmodel: qwen2.5-0.5b\njob: { kind: fine-tune }\nhardware:\n  rent: {}\n',
    );
    const levels = input.hardware.map(() => [1]);
    const t = hwTableOf({ s: input.scenario, hw: input.hardware, levels } as unknown as Ctx);
    expect(t.distinctRates).toBeLessThan(input.hardware.length);
    for (let a = 0; a < t.H; a++)
      for (let b = 0; b < t.H; b++) {
        const same = t.rateIds[a * MAX_LEVELS] === t.rateIds[b * MAX_LEVELS];
        expect(same).toBe(t.rates[a * MAX_LEVELS] === t.rates[b * MAX_LEVELS]);
        if (same) expect(t.gpuBytes[a]).toBe(t.gpuBytes[b]);
      }
  });

  it('steps are kept only where options share rates objects', () => {
    expect(stepsFor(4, 4)).toBeNull();
    expect([...stepsFor(3, 6)!]).toEqual([NaN, NaN, NaN]);
  });

  it('the search equals the exhaustive one (every step timed) on random rented specs', () => {
    let shared = 0;
    fc.assert(
      fc.property(specArb, (yaml) => {
        let input: PlanInput;
        try {
          input = inputOf('random.yaml', yaml);
        } catch (e) {
          // A spec whose filters leave no offer (a GPU type no provider rents as that kind) is not a search.
          fc.pre(!(e instanceof UserError));
          throw e;
        }
        if (sharesRates(input.hardware)) shared++;
        expect(JSON.stringify(plan(input))).toBe(JSON.stringify(plan(unshared(input))));
      }),
      { numRuns: 12 },
    );
    // Not vacuous: most specs list several offers of one GPU type.
    expect(shared).toBeGreaterThan(0);
  }, 300_000);

  it('the shipped rent scenario equals its exhaustive search', () => {
    const file = new URL('../../scenarios/70b-qlora-rent-cheapest.yaml', import.meta.url);
    const scenario = loadScenario(file.pathname);
    const hw = resolveHardware(scenario);
    const input: PlanInput = {
      scenario,
      arch: resolveModel(scenario.model),
      hardware: hw.options,
      circuits: hw.circuits,
    };
    expect(sharesRates(input.hardware)).toBe(true);
    expect(JSON.stringify(plan(input))).toBe(JSON.stringify(plan(unshared(input))));
  }, 120_000);
});
