// DP attention's lockstep: every rank steps with the one that prefills (SGLang prepare_mlp_sync_batch_raw, vLLM's
// aligned forward passes), so a request's TPOT carries the prefills of the whole engine's arrivals, counted as the
// distinct steps that hold one (the ranks prefill in parallel within a step).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import {
  dpAttentionStep,
  lockstepStalls,
  lockstepSteps,
} from '../../src/core/time/expert-parallel.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { meanContextOf } from '../../src/schema/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const gpu = findGpu('mi300x');
const dsv3 = resolveModel('deepseek-v3');

function setup(framework: string, seq = 490) {
  const all = {
    method: 'inference',
    framework,
    weights: 'fp8',
    gpus: 8,
    tp: 1,
    'dp-attention': true,
    ep: 8,
    batch: 11,
    seq,
    'prompt-tokens': 302,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  const t = defaultTimeOptions(1);
  const m = modelFacts(dsv3);
  const r = gpuRates(gpu, t);
  return { o, t, m, r, step: dpAttentionStep(m, o, t, r, meanContextOf(o)) };
}

// 11 a rank over 8 ranks, 490 - 302 = 188 output tokens: its own rank's 10 other arrivals, 77 on the other ranks.
const S = 188;
const own = 10;
const others = 77;

describe("DP attention's lockstep", () => {
  it('SGLang: the own rank loses each of its prefills whole, the other ranks the distinct steps holding theirs', () => {
    const { o, t, m, r, step } = setup('sglang');
    expect(FRAMEWORKS.sglang.dpPrefillStepEager).toBe(true);
    // A prefill of 1 s of rank work: the step lasts it plus the MoE layers over the gathered tokens and its experts.
    const p = { rank: 1, rankInStep: 0.5, experts: 0.1 };
    const { prefillStep, stall, lockSteps } = lockstepStalls(m, o, t, r, p, step);
    expect(prefillStep).toBeGreaterThan(1.1);
    expect(prefillStep).toBeLessThan(1.1 + step);
    // The others' 77 arrivals spread over its 188 decode steps and its own rank's 10 prefill steps.
    expect(lockSteps).toBeCloseTo(S * (1 - Math.exp(-others / (S + own))), 9);
    expect(lockSteps).toBeLessThan(others);
    const base = prefillStep - 0.1;
    expect(stall).toBeCloseTo(base * own + (base - step) * lockSteps + 0.1 * (own + others), 9);
  });

  it('SGLang: a prefill shorter than the decode step stalls the other ranks not at all', () => {
    const { o, t, m, r, step } = setup('sglang');
    const p = { rank: 0, rankInStep: 0, experts: 0 };
    const { prefillStep, stall } = lockstepStalls(m, o, t, r, p, step);
    expect(prefillStep).toBeLessThanOrEqual(step + 1e-12);
    expect(stall).toBeCloseTo(prefillStep * own, 9);
  });

  it("vLLM: a ridden prompt grows its step by one rank's prompt work however many ranks carry one", () => {
    const { o, t, m, r, step } = setup('vllm');
    expect(FRAMEWORKS.vllm.prefillInDecodeStep).toBe(true);
    const p = { rank: 1, rankInStep: 0.5, experts: 0.1 };
    const { prefillStep, stall, lockSteps } = lockstepStalls(m, o, t, r, p, step);
    expect(prefillStep).toBeCloseTo(1.1, 12);
    // The steps holding another rank's prompt and none of its own rank's.
    const expected = S * Math.exp(-own / S) * (1 - Math.exp(-others / S));
    expect(lockSteps).toBeCloseTo(expected, 9);
    expect(stall).toBeCloseTo(0.5 * (own + expected) + 0.1 * (own + others), 9);
    // Fewer than the 87 arrivals it counted one step each.
    expect(stall).toBeLessThan(0.6 * (own + others));
  });
});

describe("DP attention's lockstep: the distinct prefill steps", () => {
  const arrivals = fc.double({ min: 0, max: 1e5, noNaN: true });
  const steps = fc.integer({ min: 1, max: 1e6 });

  it('never exceed the decode steps nor the arrivals, and grow with the arrivals', () => {
    fc.assert(
      fc.property(steps, arrivals, arrivals, arrivals, fc.boolean(), (n, a, b, c, inserted) => {
        const [lo, hi] = b <= c ? [b, c] : [c, b];
        const d = lockstepSteps(n, a, hi, inserted);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(n * (1 + 1e-12) + 1e-12);
        expect(d).toBeLessThanOrEqual(hi * (1 + 1e-12) + 1e-12);
        expect(lockstepSteps(n, a, lo, inserted)).toBeLessThanOrEqual(d * (1 + 1e-12) + 1e-12);
      }),
      { numRuns: 2000 },
    );
  });

  it('equal the per-arrival count when the arrivals are few against the steps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        fc.boolean(),
        (b, a, inserted) => {
          const n = 1e4 * (a + b);
          expect(lockstepSteps(n, a, b, inserted) / b).toBeCloseTo(1, 3);
        },
      ),
    );
    // And fall well below it when the arrivals outnumber the steps.
    expect(lockstepSteps(100, 0, 1000, false)).toBeCloseTo(100 * (1 - Math.exp(-10)), 9);
  });

  it("a request's TPOT: never above the per-arrival count, never more lockstep steps than its decode steps", () => {
    for (const framework of ['sglang', 'vllm']) {
      fc.assert(
        fc.property(
          fc.integer({ min: 303, max: 20_000 }),
          fc.double({ min: 0, max: 2, noNaN: true }),
          fc.double({ min: 0, max: 0.5, noNaN: true }),
          (seq, rank, experts) => {
            const { o, t, m, r, step } = setup(framework, seq);
            const out = seq - 302;
            const p = { rank, rankInStep: rank / 2, experts };
            const { prefillStep, stall, lockSteps } = lockstepStalls(m, o, t, r, p, step);
            expect(lockSteps).toBeLessThanOrEqual(Math.min(out, others) * (1 + 1e-12));
            const base = prefillStep - experts;
            const perArrival =
              framework === 'vllm'
                ? (rank / 2 + experts) * (own + others)
                : base * own + Math.max(0, base - step) * others + experts * (own + others);
            expect(stall).toBeLessThanOrEqual(perArrival * (1 + 1e-12) + 1e-15);
          },
        ),
        { numRuns: 60 },
      );
    }
  });
});
