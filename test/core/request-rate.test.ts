// A burst whose prompts are sent at a request rate (time/length-spread.ts sentAt): request i reaches the scheduler
// i / rate seconds after the first, a step holds only the requests that have arrived, the run lasts from the first
// send to the last token and each TTFT runs from the request's own send.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  sentAt,
  spreadBurst,
  spreadBurstSeconds,
  type SpreadEngine,
} from '../../src/core/time/length-spread.js';
import { frontendTtft } from '../../src/core/time/stepped-burst.js';
import { loadDataset } from '../../src/io/load-catalog.js';

const sharegpt = loadDataset('sharegpt');
const shape = { levels: sharegpt.levels, ...sharegpt.samplers.vllm! };
const flat = (prompt: number, output: number) => ({
  levels: [0, 100],
  prompt: [prompt, prompt],
  output: [output, output],
});

const engine = (slots: number, poolTokens: number, budgetTokens?: number): SpreadEngine => ({
  slots,
  poolTokens,
  stepSeconds: (n: number) => 0.01 + 0.001 * n,
  prefillSecondsPerToken: 1e-5,
  ...(budgetTokens === undefined ? {} : { budgetTokens }),
});

describe('requests sent at a rate', () => {
  it('sends request i at i / rate; an infinite rate leaves the burst as it was', () => {
    const reqs = Array.from({ length: 4 }, () => ({ prompt: 10, output: 5 }));
    expect(sentAt(reqs, 2).map((r) => r.arrival)).toEqual([0, 0.5, 1, 1.5]);
    expect(sentAt(reqs, Infinity)).toBe(reqs);
  });

  it('a rate so slow that each request runs alone: the last send, (N - 1) / R, plus one request alone', () => {
    const e = engine(64, 1e9, 2048);
    const one = spreadBurst([{ prompt: 500, output: 100 }], e);
    const N = 20;
    // One request takes about 1.1 s here; one a 2 s keeps them apart.
    const R = 0.5;
    expect(one.seconds).toBeLessThan(1 / R);
    const reqs = sentAt(
      Array.from({ length: N }, () => ({ prompt: 500, output: 100 })),
      R,
    );
    const b = spreadBurst(reqs, e);
    expect(b.seconds).toBeCloseTo((N - 1) / R + one.seconds, 9);
    // The engine's work is N requests alone, and each first token comes as fast as the lone request's.
    expect(b.steps).toBe(N * one.steps);
    expect(b.ttftSumSeconds / N).toBeCloseTo(one.ttftSumSeconds, 9);
    expect(b.ttftMaxSeconds).toBeCloseTo(one.ttftMaxSeconds, 9);
    expect(b.peakRunning).toBe(1);
    expect(b.tpotSumSeconds / b.tpotRequests).toBeCloseTo(one.tpotSumSeconds, 9);
  });

  it('an infinite rate is the burst sent at once; a rate past every step differs by its first step at most', () => {
    const e = engine(128, 200 * 700, 8192);
    const burst = spreadBurstSeconds(shape, 300, 217, 201, e, 1);
    expect(spreadBurstSeconds(shape, 300, 217, 201, e, 1, Infinity)).toEqual(burst);
    // At 1e12 a second the first step starts on request 0 alone (the rest are sent a picosecond later) and the
    // others join from the second: never faster than the burst, and no more than one whole step slower.
    const step = 0.01 + 0.001 * 128 + 8192 * 1e-5;
    const fast = spreadBurstSeconds(shape, 300, 217, 201, e, 1, 1e12);
    expect(fast.seconds).toBeGreaterThanOrEqual(burst.seconds);
    expect(fast.seconds - burst.seconds).toBeLessThanOrEqual(step);
    expect(fast.burst.peakRunning).toBe(burst.burst.peakRunning);
  });

  it('a lower rate never shortens the run from the first send, nor raises its peak batch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 200 }),
        fc.integer({ min: 1, max: 128 }),
        fc.integer({ min: 16, max: 2000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.double({ min: 0.05, max: 500, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.boolean(),
        (batch, slots, prompt, out, rate, slower, budget) => {
          // A pool that holds the burst and no output reserve. On a short pool a later send can spare a preemption
          // (its recompute) and finish a little sooner; under SGLang's reserve, whose ratio decays by the step, a
          // later admission finds a lower reserve and may run one more: both list-scheduling effects of the engine,
          // not of the arrivals' timing.
          const e = engine(slots, batch * (prompt + out + 1), budget ? 2048 : undefined);
          const run = (r: number) =>
            spreadBurstSeconds(flat(prompt, out), batch, prompt, out, e, 0, r);
          const [hi, lo, once] = [run(rate), run(rate * slower), run(Infinity)];
          expect(lo.seconds).toBeGreaterThanOrEqual(hi.seconds * (1 - 1e-12));
          expect(hi.seconds).toBeGreaterThanOrEqual(once.seconds * (1 - 1e-12));
          expect(lo.burst.peakRunning).toBeLessThanOrEqual(hi.burst.peakRunning);
          expect(hi.burst.peakRunning).toBeLessThanOrEqual(once.burst.peakRunning);
          // Never shorter than the last send and that request's own work.
          expect(lo.seconds).toBeGreaterThanOrEqual((batch - 1) / (rate * slower));
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe("the frontend's bound on first tokens under a rate", () => {
  it('all at once: request i after i + 1 admissions; a rate slower than the frontend: one admission each', () => {
    expect(frontendTtft(0.002, 10, Infinity)).toEqual({ mean: 0.011, max: 0.02 });
    const slow = frontendTtft(0.002, 10, 100);
    expect(slow.mean).toBeCloseTo(0.002, 12);
    expect(slow.max).toBeCloseTo(0.002, 12);
    // Faster than the frontend takes them: the queue grows by the difference each request.
    const fast = frontendTtft(0.002, 10, 1000);
    expect(fast.max).toBeCloseTo(0.002 + 9 * 0.001, 12);
  });
});
