// SGLang's admission reserve (time/admission-reserve.ts): a waiting request runs only while the pool, less the
// running requests' remaining output times new_token_ratio, holds its prompt and whole output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { casePool } from '../../src/commands/validate-throughput.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import {
  meanReserveRatio,
  poolSequencesOf,
  reserveAdmitted,
} from '../../src/core/time/admission-reserve.js';
import { spreadBurst } from '../../src/core/time/length-spread.js';
import type { AdmissionReserve } from '../../src/core/memory/layout-profiles.js';
import { caseArch, loadThroughputCases } from '../../src/io/load-calibration.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { meanContextOf } from '../../src/schema/estimate.js';

const RESERVE = FRAMEWORKS.sglang.server!.admissionReserve!;

describe('the admission reserve', () => {
  it('a larger reserve ratio never admits more requests', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 1, max: 40_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (tokens, prompt, out, a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(reserveAdmitted(tokens, prompt, out, hi, 4096)).toBeLessThanOrEqual(
            reserveAdmitted(tokens, prompt, out, lo, 4096),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never admits more than the pool holds at the mean context, nor more than --batch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 2, max: 40_000 }),
        fc.integer({ min: 1, max: 4000 }),
        fc.integer({ min: 1, max: 2000 }),
        (tokens, seq, batch, prompt) => {
          const o = optionsFromFlags({
            method: 'inference',
            framework: 'sglang',
            seq,
            batch,
            'prompt-tokens': Math.min(prompt, seq - 1),
          });
          const plain = Math.min(batch, Math.floor(tokens / meanContextOf(o)));
          const held = poolSequencesOf(tokens, o);
          expect(held).toBeLessThanOrEqual(plain);
          // vLLM has no such reserve: the pool's count at the mean context.
          expect(poolSequencesOf(tokens, { ...o, framework: 'vllm' })).toBe(plain);
          expect(held >= 1 || plain < 1).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("the ratio decays from SGLang's start (0.7) to its floor (0.7 x 0.14) over 600 decode steps", () => {
    expect(meanReserveRatio(RESERVE, 1)).toBeCloseTo(0.7, 12);
    // Over the decay alone: the mean of start and the last step's value.
    const last = 0.7 - ((0.7 - 0.098) / 600) * 599;
    expect(meanReserveRatio(RESERVE, 600)).toBeCloseTo((0.7 + last) / 2, 12);
    // A burst long past the decay runs near the floor.
    expect(meanReserveRatio(RESERVE, 1e7)).toBeCloseTo(0.098, 4);
    let prev = Infinity;
    for (const n of [1, 10, 100, 599, 600, 601, 2000, 20000]) {
      const r = meanReserveRatio(RESERVE, n);
      expect(r).toBeLessThanOrEqual(prev);
      prev = r;
    }
  });
});

describe("SGLang's retraction (AdmissionReserve.retraction, managers/schedule_batch.py retract_decode)", () => {
  // A burst that outgrows its pool mid-decode: requests of 20 tokens in and 200 out, a pool of 900 tokens, a reserve
  // that decays fast (so the scheduler over-admits and retracts), a step of one second and free prefills.
  const burst = (n: number, decaySteps: number, retraction?: AdmissionReserve['retraction']) =>
    spreadBurst(
      Array.from({ length: n }, () => ({ prompt: 20, output: 200 })),
      {
        slots: 64,
        poolTokens: 900,
        reserve: {
          ...RESERVE,
          minRatio: 0.1,
          decaySteps,
          ...(retraction === undefined ? {} : { retraction }),
        },
        stepSeconds: () => 1,
        prefillSecondsPerToken: 0,
      },
    );

  it("SGLang's profile resets the ratio 20 steps ahead and requeues the retracted at the back", () => {
    expect(RESERVE.retraction).toEqual({ aheadSteps: 20, requeue: 'back' });
  });

  it('the ratio a retraction sets admits fewer afterwards, so fewer retractions follow', () => {
    const plain = burst(40, 50);
    const reset = burst(40, 50, { aheadSteps: 20, requeue: 'front' });
    expect(plain.preemptions).toBeGreaterThan(0);
    expect(reset.preemptions).toBeLessThan(plain.preemptions);
    expect(reset.meanRunning).toBeLessThan(plain.meanRunning);
  });

  it('the retracted wait behind the requests not yet admitted, which so start sooner', () => {
    const front = burst(20, 10, { aheadSteps: 20, requeue: 'front' });
    const back = burst(20, 10, { aheadSteps: 20, requeue: 'back' });
    expect(front.preemptions).toBeGreaterThan(0);
    expect(back.ttftMaxSeconds).toBeLessThan(front.ttftMaxSeconds);
  });

  it('a burst that never fills its pool runs the same with or without it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 600 }), (n, d) => {
        const a = burst(n, d);
        const b = burst(n, d, { aheadSteps: 20, requeue: 'back' });
        expect(a.preemptions).toBe(0);
        expect(b).toEqual(a);
      }),
      { numRuns: 50 },
    );
  });
});

describe('the SGLang rows whose pools bind, through the reserve', () => {
  const rows = loadThroughputCases('throughput.json').filter(
    (c) => c.scorable !== false && c.flags.framework === 'sglang',
  );
  const poolOf = (id: string, reserve: boolean): number | undefined => {
    const c = rows.find((r) => r.id === id)!;
    const flags = Object.fromEntries(
      Object.entries(c.flags).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
    ) as RawFlags;
    const o = optionsFromFlags(flags);
    const server = FRAMEWORKS.sglang.server!;
    if (!reserve) delete server.admissionReserve;
    try {
      return casePool(c, caseArch(c), o, findGpu(String(c.flags.gpu))).pool;
    } finally {
      server.admissionReserve = RESERVE;
    }
  };

  it('the lukaLLM ShareGPT burst: 115 of the 48,740-token pool, where 121 fit at the mean context of 400', () => {
    // 1000 requests, 302 tokens in and 196 out: 9 waves of 121 run 9 x 196 = 1764 decode steps, the ratio's mean
    // over them (600 decaying from 0.7, then 0.098) about 0.200; each running request holds 302 + 98 and reserves
    // 0.200 x 98, the next one needs 302 + 196: (48740 - 498) / 419.6 + 1 = 115.
    const steps = 9 * 196;
    const ratio = meanReserveRatio(RESERVE, steps);
    expect(ratio).toBeCloseTo(0.2, 2);
    expect(Math.floor((48740 - 498) / (302 + 98 + ratio * 98)) + 1).toBe(115);
    expect(poolOf('lukallm-qwen3coder30b-fp8-l40s-sglang-sharegpt-burst1000', false)).toBe(121);
    expect(poolOf('lukallm-qwen3coder30b-fp8-l40s-sglang-sharegpt-burst1000', true)).toBe(115);
  });

  it('the GPUStack prompt-heavy bursts move by a sequence or two: their outputs are short', () => {
    const ids = [
      'gpslab-qwen3-14b-fp8-h100-sglang-burst500-i2k',
      'gpslab-qwen3-14b-fp8-h100-sglang-burst500-i4k',
      'gpslab-qwen3-14b-fp8-h100-sglang-burst100-i32k',
    ];
    expect(ids.map((id) => [poolOf(id, false), poolOf(id, true)])).toEqual([
      [162, 160],
      [81, 80],
      [10, 10],
    ]);
  });
});
