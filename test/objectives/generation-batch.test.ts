/**
 * GRPO's rollout by TRL's mechanism: each process generates its whole generation batch (micro-batch x
 * steps_per_generation, the gradient accumulation by default) at once, the split must hold whole groups of
 * num_generations, and a batch decodes until its longest completion (`--completion-tokens` is the mean).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import type { Arch } from '../../src/core/model/index.js';
import {
  LONGEST_TO_MEAN_COMPLETION,
  longestCompletion,
  meanCompletion,
} from '../../src/core/time/completion-length.js';
import { plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { listModels, resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import {
  checkCombination,
  FlagError,
  objectiveInto,
  optionsFromFlags,
  type RawFlags,
} from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { generatedArchArb, labelled, optionsArb, withDiffString } from '../helpers/arbitraries.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261202);
const params = { numRuns: RUNS, seed: SEED };
const h100 = findGpu('h100-sxm');

const archArb = fc.oneof(
  { weight: 2, arbitrary: generatedArchArb({ maxLayers: 48, maxHeads: 64 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...listModels().map((m) => labelled(resolveModel(m.id), `catalog:${m.id}`)),
    ),
  },
);
// TRL runs no pipeline parallelism: the trainers are pp = 1.
const optsArb = optionsArb({ methods: ['lora', 'qlora', 'full'], maxSeq: 8192, maxDp: 8 }).map(
  (o) => withDiffString({ ...o, gpus: o.gpus / o.pp, pp: 1 }),
);
const grpoArb = fc.record({
  rollout: fc.constantFrom('hf', 'vllm-colocate', 'vllm-server'),
  generations: fc.constantFrom(2, 4, 8, 16),
  'prompt-tokens': fc.integer({ min: 1, max: 2048 }),
  'completion-tokens': fc.integer({ min: 1, max: 4096 }),
});

/** `o` as `estimate --objective grpo ... --batch b --grad-accum a` makes it, or null when rejected. */
function grpo(o: EstimateOptions, g: RawFlags, batch: number, accum: number) {
  const out: EstimateOptions = { ...o, batch };
  const flags: RawFlags = {
    objective: 'grpo',
    ...g,
    'grad-accum': accum,
    ...(g.rollout === 'vllm-server' ? { 'rollout-gpus': 1 } : {}),
  };
  try {
    objectiveInto(out, flags);
    checkCombination(out);
  } catch {
    return null;
  }
  return withDiffString(out);
}

const timeOf = (arch: Arch, o: EstimateOptions, accum: number) =>
  buildEstimate(arch, o, h100, { ...defaultTimeOptions(o.gpus), gradAccum: accum }).time!;
const rollout = (t: NonNullable<ReturnType<typeof buildEstimate>['time']>) =>
  t.phases.find((p) => p.phase === 'rollout')!.seconds;

describe('GRPO generation batch (properties)', () => {
  it('rollout time depends on the generation batch (micro-batch x accumulation), not the micro-batch', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(1, 2, 4, 8),
        (arch, o, g, groups, b1, b2) => {
          // A generation batch of `groups` x 8 x num_generations completions per process, split two ways.
          const total = groups * 8 * g.generations;
          const a = grpo(o, g, b1, total / b1);
          const b = grpo(o, g, b2, total / b2);
          fc.pre(a !== null && b !== null);
          expect(rollout(timeOf(arch, b, total / b2))).toBe(rollout(timeOf(arch, a, total / b1)));
        },
      ),
      params,
    );
  });

  it('at a fixed generation batch and split, a larger group never shortens a step', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(1, 2, 4),
        (arch, o, g, batch, bigger) => {
          // 32 completions per process in micro-batches of `batch`: groups of G and of a larger G' both divide it.
          const accum = 32 / batch;
          const a = grpo(o, g, batch, accum);
          const b = grpo(
            o,
            { ...g, generations: Math.min(32, g.generations * 2 * bigger) },
            batch,
            accum,
          );
          fc.pre(a !== null && b !== null);
          const t1 = timeOf(arch, a, accum);
          const t2 = timeOf(arch, b, accum);
          expect(t2.stepSeconds).toBeGreaterThanOrEqual(t1.stepSeconds);
          expect(rollout(t2)).toBeGreaterThanOrEqual(rollout(t1));
        },
      ),
      params,
    );
  });

  it('longer completions (a longer longest completion) never shorten a step', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.integer({ min: 1, max: 4096 }),
        (arch, o, g, more) => {
          const batch = g.generations;
          const short = grpo(o, g, batch, 1);
          const long = grpo(
            o,
            { ...g, 'completion-tokens': g['completion-tokens'] + more },
            batch,
            1,
          );
          fc.pre(short !== null && long !== null);
          const t1 = timeOf(arch, short, 1);
          const t2 = timeOf(arch, long, 1);
          expect(t2.stepSeconds).toBeGreaterThanOrEqual(t1.stepSeconds);
          expect(rollout(t2)).toBeGreaterThanOrEqual(rollout(t1));
        },
      ),
      params,
    );
  });

  it('a higher --max-completion-tokens cap (TRL max_completion_length) never shortens a step', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.integer({ min: 0, max: 4096 }),
        fc.integer({ min: 1, max: 4096 }),
        (arch, o, g, over, more) => {
          const batch = g.generations;
          // Caps at or above the mean (flags.ts refuses one below it), the second the higher.
          const cap = g['completion-tokens'] + over;
          const low = grpo(o, { ...g, 'max-completion-tokens': cap }, batch, 1);
          const high = grpo(o, { ...g, 'max-completion-tokens': cap + more }, batch, 1);
          fc.pre(low !== null && high !== null);
          const t1 = timeOf(arch, low, 1);
          const t2 = timeOf(arch, high, 1);
          expect(t2.stepSeconds).toBeGreaterThanOrEqual(t1.stepSeconds);
          expect(rollout(t2)).toBeGreaterThanOrEqual(rollout(t1));
        },
      ),
      params,
    );
  });

  it('at equal prompts, more generations (a bigger generation batch) never shorten the rollout', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.constantFrom(1, 2, 4),
        fc.constantFrom(1, 2, 4),
        fc.constantFrom(2, 4),
        (arch, o, g, prompts, accum, times) => {
          // `prompts` prompts a micro-batch, each with G completions, then with `times` x G.
          const G = Math.min(16, g.generations);
          const a = grpo(o, { ...g, generations: G }, prompts * G, accum);
          const b = grpo(o, { ...g, generations: G * times }, prompts * G * times, accum);
          fc.pre(a !== null && b !== null);
          // The rollout only: the policy's larger micro-batch can hide more of a ZeRO step's exposed traffic.
          expect(rollout(timeOf(arch, b, accum))).toBeGreaterThanOrEqual(
            rollout(timeOf(arch, a, accum)),
          );
        },
      ),
      params,
    );
  });

  it('a higher cap never shortens a step over several generation batches or one per micro-batch', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.constantFrom(1, 2, 8),
        fc.constantFrom(undefined, 1),
        fc.integer({ min: 0, max: 2048 }),
        fc.integer({ min: 1, max: 4096 }),
        (arch, o, g, accum, spg, over, more) => {
          const batch = g.generations;
          const cap = g['completion-tokens'] + over;
          // TRL before steps_per_generation generated for every micro-batch (--steps-per-generation 1).
          const every = spg === undefined ? {} : { 'steps-per-generation': spg };
          const low = grpo(o, { ...g, ...every, 'max-completion-tokens': cap }, batch, accum);
          const high = grpo(
            o,
            { ...g, ...every, 'max-completion-tokens': cap + more },
            batch,
            accum,
          );
          fc.pre(low !== null && high !== null);
          const t1 = timeOf(arch, low, accum);
          const t2 = timeOf(arch, high, accum);
          expect(t2.stepSeconds).toBeGreaterThanOrEqual(t1.stepSeconds);
          expect(rollout(t2)).toBeGreaterThanOrEqual(rollout(t1));
        },
      ),
      params,
    );
  });
});

describe('GRPO generation batch', () => {
  it('16 completions of one prompt and 8 of two take the same rollout at the same generation batch', () => {
    const arch = resolveModel('qwen2.5-7b');
    const base = optionsFromFlags({ method: 'lora' });
    const g = { rollout: 'vllm-colocate', 'prompt-tokens': 512, 'completion-tokens': 512 };
    // 16 x 1 prompt in one micro-batch; 8 x 2 prompts over micro-batches of 2 (accumulation 8).
    const one = grpo(base, { ...g, generations: 16 }, 16, 1)!;
    const two = grpo(base, { ...g, generations: 8 }, 2, 8)!;
    expect(rollout(timeOf(arch, two, 8))).toBe(rollout(timeOf(arch, one, 1)));
  });

  it("TRL's own generate: the group size leaves a QLoRA step unchanged at one generation batch", () => {
    // TRL's transformers path left-pads the whole generation batch (per_device_train_batch_size x
    // steps_per_generation) and calls generate once, whatever num_generations is (huggingface/trl v1.9.0
    // grpo_trainer.py _get_train_sampler, _generate_single_turn); a QLoRA Qwen3-14B on an RTX 4090 at 32 completions
    // a step, LoRA dropout on (TRL generates in training mode): 8 x 4 prompts and 16 x 2 take the same step.
    const arch = resolveModel('qwen3-14b');
    const gpu = findGpu('rtx-4090');
    const flags = (generations: number): RawFlags => ({
      method: 'qlora',
      weights: 'nf4',
      'double-quant': true,
      'lora-rank': 8,
      'lora-targets': 'all-linear',
      checkpointing: 'full',
      objective: 'grpo',
      generations,
      batch: 8,
      'grad-accum': 4,
      'completion-tokens': 160,
      'max-completion-tokens': 160,
      'prompt-tokens': 12,
      rollout: 'hf',
      reference: 'none',
      framework: 'hf',
      gpu: 'rtx-4090',
    });
    const at = (generations: number) => {
      const o = optionsFromFlags(flags(generations));
      const t = { ...defaultTimeOptions(o.gpus), gradAccum: 4, loraDropout: true };
      return buildEstimate(arch, o, gpu, t).time!;
    };
    const eight = at(8);
    const sixteen = at(16);
    expect(rollout(eight)).toBeGreaterThan(0);
    expect(sixteen.stepSeconds).toBe(eight.stepSeconds);
    expect(rollout(sixteen)).toBe(rollout(eight));
  });

  it('a split whose generation batch does not hold whole groups is refused, naming --generations', () => {
    // 2 x 1 process x 1 = 2 completions: not a multiple of 8 (TRL GRPOConfig raises).
    const run = () => optionsFromFlags({ objective: 'grpo', generations: 8, batch: 2 });
    expect(run).toThrow(FlagError);
    expect(run).toThrow(/--generations: got 8; expected a divisor of the generation batch .* = 2/);
    // 2 x 1 x 4 = 8 holds one group.
    expect(
      optionsFromFlags({ objective: 'grpo', generations: 8, batch: 2, 'grad-accum': 4 }),
    ).toMatchObject({ stepsPerGeneration: 4 });
    // TRL's per-device default (8) holds a group of 8 without --batch.
    expect(optionsFromFlags({ objective: 'grpo' }).batch).toBe(8);
  });

  it('the planner ranks only splits TRL accepts, and launches one generation batch per step', () => {
    const file = 'scenarios/grpo-qwen2.5-7b.yaml';
    const s = loadScenario(file);
    const r = plan(planInputOf(file, s));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      const c = p.choices;
      expect((c.microBatch * c.dp * c.gradAccum) % p.options.generations!).toBe(0);
      expect(p.options.stepsPerGeneration ?? 1).toBe(c.gradAccum);
    }
  });

  it('the longest completion is the stated ratio over the mean, and reads back as the mean', () => {
    expect(LONGEST_TO_MEAN_COMPLETION).toBe(1.47);
    // ceil(1.47 x 256) = ceil(376.32) = 377; floor(377 / 1.47) = floor(256.46) = 256.
    expect(longestCompletion(256)).toBe(377);
    expect(meanCompletion(377)).toBe(256);
    for (let m = 1; m <= 20_000; m++) expect(meanCompletion(longestCompletion(m))).toBe(m);
  });
});

describe("a config's generation_batch_size (TRL v1.9.0 grpo_config.py __post_init__)", () => {
  const grpo = (extra: RawFlags) =>
    optionsFromFlags({
      objective: 'grpo',
      method: 'lora',
      batch: 1,
      'grad-accum': 8,
      generations: 16,
      ...extra,
    });

  it('sets steps_per_generation to it over the global batch, so 16 generations fit a batch of 16', () => {
    // huggingface/trl docs/source/lora_without_regret.md: per_device 1, accumulation 8, generation_batch_size 16.
    expect(grpo({ 'generation-batch': 16 }).stepsPerGeneration).toBe(16);
    expect(grpo({ 'generation-batch': 32, gpus: 2 }).stepsPerGeneration).toBe(16);
    // Without it, the generation batch is the accumulation's 8, which 16 generations do not divide.
    expect(() => grpo({})).toThrow(/grpo_config\.py#L1110/);
  });

  it('refuses what TRL raises on: not a multiple of the global batch (L1082)', () => {
    expect(() => grpo({ 'generation-batch': 16, batch: 3, generations: 3 })).toThrow(
      /--generation-batch: got 16; expected a multiple of the global batch --batch 3 x 1 trainer process = 3 .*grpo_config\.py#L1082/,
    );
  });
});
