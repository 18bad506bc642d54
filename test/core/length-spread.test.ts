// A burst over a dataset's length spread (time/length-spread.ts): the requests drawn at the dataset's quantiles and
// run step by step with admission by actual lengths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  quantileAt,
  spreadBurst,
  spreadBurstSeconds,
  spreadRequests,
  type SpreadEngine,
} from '../../src/core/time/length-spread.js';
import { loadDataset } from '../../src/io/load-catalog.js';

const sharegpt = loadDataset('sharegpt');
const shapeOf = (sampler: string) => ({ levels: sharegpt.levels, ...sharegpt.samplers[sampler]! });
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('the length table', () => {
  it('reads linearly between levels and flat past the last', () => {
    const levels = [0, 50, 100];
    expect(quantileAt(levels, [0, 10, 30], 0.25)).toBe(5);
    expect(quantileAt(levels, [0, 10, 30], 0.75)).toBe(20);
    expect(quantileAt([0, 50, 99.9], [0, 10, 30], 1)).toBe(30);
  });

  it("draws the burst at the row's means, all at the mean without spread", () => {
    const r = spreadRequests(shapeOf('vllm'), 1000, 217, 201);
    expect(mean(r.map((x) => x.prompt))).toBeCloseTo(217, 6);
    expect(Math.abs(mean(r.map((x) => x.output)) - 201)).toBeLessThan(0.5);
    // ShareGPT's outputs spread widely: the longest of 1000 is several times the mean.
    expect(Math.max(...r.map((x) => x.output))).toBeGreaterThan(5 * 201);
    const flat = spreadRequests(shapeOf('vllm'), 1000, 217, 201, 0);
    expect(new Set(flat.map((x) => `${x.prompt}/${x.output}`))).toEqual(new Set(['217/201']));
  });
});

const linearEngine = (slots: number, poolTokens: number, a: number, b: number): SpreadEngine => ({
  slots,
  poolTokens,
  stepSeconds: (n: number) => a + b * n,
  prefillSecondsPerToken: 1e-5,
});

describe('the burst run step by step', () => {
  it('equal requests on a pool that holds them run in waves of the running cap', () => {
    const reqs = Array.from({ length: 100 }, () => ({ prompt: 10, output: 20 }));
    const b = spreadBurst(reqs, linearEngine(32, 1e9, 0.01, 0.001));
    // ceil(100 / 32) = 4 waves of 20 steps; the last of 4 requests. A wave's first token comes with its prefill,
    // the other 19 one a decode step.
    expect(b.steps).toBe(80);
    expect(b.preemptions).toBe(0);
    expect(b.seconds).toBeCloseTo(57 * (0.01 + 0.032) + 19 * (0.01 + 0.004) + 100 * 10 * 1e-5, 9);
  });

  it('a pool short of the running cap runs what fits and preempts the last admitted when it fills', () => {
    const reqs = Array.from({ length: 10 }, () => ({ prompt: 100, output: 100 }));
    // 1,000 tokens: ten prompts fit, their outputs do not: the last admitted leave and come back.
    const b = spreadBurst(reqs, linearEngine(10, 1000, 0.01, 0.001));
    expect(b.preemptions).toBeGreaterThan(0);
    expect(b.meanRunning).toBeLessThan(10);
    // A request larger than the pool still runs, alone.
    expect(spreadBurst([{ prompt: 5000, output: 3 }], linearEngine(4, 1000, 0.01, 0)).steps).toBe(
      3,
    );
  });

  it('a reserve for the running requests admits no more than admission by prompt', () => {
    const reqs = spreadRequests(shapeOf('sglang'), 400, 302, 196);
    const plain = linearEngine(400, 40_000, 0.02, 0.0005);
    const reserve = { initRatio: 0.7, minRatio: 0.098, decaySteps: 600, clipTokens: 4096 };
    const held = spreadBurst(reqs, { ...plain, reserve });
    expect(held.meanRunning).toBeLessThan(spreadBurst(reqs, plain).meanRunning);
    expect(held.preemptions).toBe(0);
  });

  const reserveOf = (on: boolean) =>
    on ? { reserve: { initRatio: 0.7, minRatio: 0.098, decaySteps: 600, clipTokens: 4096 } } : {};

  it('a wider spread of the same means never shortens a burst', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('vllm', 'sglang'),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 1, max: 400 }),
        fc.double({ min: 0.002, max: 0.05, noNaN: true }),
        fc.double({ min: 0, max: 0.001, noNaN: true }),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sampler, batch, slots, poolSequences, a, b, reserve, spread) => {
          const [prompt, out] = [217, 201];
          const e: SpreadEngine = {
            ...linearEngine(slots, poolSequences * (prompt + out / 2), a, b),
            ...reserveOf(reserve),
          };
          const at = (s: number) =>
            spreadBurstSeconds(shapeOf(sampler), batch, prompt, out, e, s).seconds;
          expect(at(spread)).toBeGreaterThanOrEqual(at(0));
        },
      ),
      { numRuns: 30, seed: 7 },
    );
  });

  it('a ShareGPT burst of 1000 takes longer the wider its spread, on a slot cap and on a short pool', () => {
    // vllm-project/vllm#17788's shape (32 slots, a pool that holds them) and vllm-project/vllm#29217's (a pool of about 85 at the mean).
    for (const e of [
      linearEngine(32, 1e9, 0.023, 0.0002),
      linearEngine(256, 85 * 312, 0.03, 0.0004),
    ]) {
      const at = [0, 0.25, 0.5, 0.75, 1].map(
        (s) => spreadBurstSeconds(shapeOf('vllm'), 1000, 217, 201, e, s).seconds,
      );
      at.slice(1).forEach((x, i) => expect(x).toBeGreaterThan(at[i]!));
    }
  });
});

describe("a burst under the engine's token budget", () => {
  const equal = (n: number, prompt: number, output: number) =>
    Array.from({ length: n }, () => ({ prompt, output }));

  it('the budget admits the first wave over several steps, never in fewer steps than without it', () => {
    const reqs = equal(64, 2000, 50);
    const free = spreadBurst(reqs, linearEngine(64, 1e9, 0.01, 0.001));
    const budgeted = spreadBurst(reqs, {
      ...linearEngine(64, 1e9, 0.01, 0.001),
      budgetTokens: 8192,
    });
    // Without a budget all 64 start together: 50 steps. With 8,192 tokens a step, about four prompts start a step,
    // so the last of them starts some 16 steps later and decodes its 50 tokens after that.
    expect(free.steps).toBe(50);
    expect(budgeted.steps).toBeGreaterThanOrEqual(50 + Math.floor((64 * 2000) / 8192) - 1);
    expect(budgeted.seconds).toBeGreaterThan(free.seconds);
    // Every prompt is prefilled once; nothing is preempted on a pool that holds them.
    expect(budgeted.prefilledTokens).toBe(64 * 2000);
  });

  it('a burst on fewer slots than requests takes at least the waves of the slots, the last at the batch left', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 300 }),
        fc.integer({ min: 1, max: 128 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.001, max: 0.05, noNaN: true }),
        fc.double({ min: 0, max: 0.001, noNaN: true }),
        fc.constantFrom(undefined, 2048, 8192),
        fc.boolean(),
        (n, slots, prompt, out, a, b, budgetTokens, prefillAlone) => {
          const e: SpreadEngine = {
            ...linearEngine(slots, 1e12, a, b),
            ...(budgetTokens === undefined ? {} : { budgetTokens }),
            prefillAlone,
          };
          const r = spreadBurst(equal(n, prompt, out), e);
          const c = Math.min(slots, n);
          const waves = Math.ceil(n / c);
          const last = n - (waves - 1) * c;
          // Whole waves of `out` steps (the first token comes with the prompt's prefill, the rest one a decode
          // step), the last wave's decode at the batch it has.
          expect(r.steps).toBeGreaterThanOrEqual(waves * out);
          const d = out - 1;
          const wavesSeconds =
            (waves - 1) * d * (a + b * c) + d * (a + b * last) + n * prompt * 1e-5;
          expect(r.seconds).toBeGreaterThanOrEqual(wavesSeconds * (1 - 1e-9));
          // So never less than --batch / c waves of c, the time the pool's queue gave before (time/pool-queue.ts).
          expect(r.seconds).toBeGreaterThanOrEqual(
            ((n / c) * d * (a + b * c) + n * prompt * 1e-5) * (1 - 1e-9),
          );
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });

  it('preemption never makes a run faster: what a preempted request prefilled is prefilled again, and paid', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 200 }),
        fc.integer({ min: 16, max: 2000 }),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 2, max: 40 }),
        fc.constantFrom(undefined, 2048, 8192),
        fc.boolean(),
        (n, prompt, out, fits, budgetTokens, prefillAlone) => {
          // A pool that holds `fits` prompts but not their outputs: admission by prompt, then preemption.
          const e: SpreadEngine = {
            ...linearEngine(n, fits * prompt + out, 0.01, 0.0005),
            ...(budgetTokens === undefined ? {} : { budgetTokens }),
            prefillAlone,
          };
          const r = spreadBurst(equal(n, prompt, out), e);
          const free = spreadBurst(equal(n, prompt, out), { ...e, prefillSecondsPerToken: 0 });
          expect(r.prefilledTokens).toBeGreaterThanOrEqual(n * prompt);
          // (A request preempted in the step that admitted it had prefilled nothing yet.)
          if (r.preemptions === 0) expect(r.prefilledTokens).toBe(n * prompt);
          // The same steps, each prefilled token priced: the recompute adds its own time.
          expect(r.seconds - free.seconds).toBeCloseTo(r.prefilledTokens * 1e-5, 6);
        },
      ),
      { numRuns: 40, seed: 5 },
    );
    // Ten prompts of 100 on a pool of 1,000 tokens: the last admitted leave as outputs grow and prefill their prompt
    // and output again when they come back.
    const short = spreadBurst(equal(10, 100, 100), {
      ...linearEngine(10, 1000, 0.01, 0.001),
      budgetTokens: 8192,
    });
    expect(short.preemptions).toBeGreaterThan(0);
    expect(short.prefilledTokens).toBeGreaterThan(10 * 100);
  });

  it('an engine whose prefill runs alone advances no decode in a step that prefills', () => {
    const reqs = equal(300, 100, 600);
    const mixed = { ...linearEngine(256, 1e9, 0.01, 0.0001), budgetTokens: 2048 };
    const m = spreadBurst(reqs, mixed);
    const alone = spreadBurst(reqs, { ...mixed, prefillAlone: true });
    // 256 prompts of 100 tokens take 13 prefill steps of 2,048; run alone they hold the decodes back.
    expect(alone.steps).toBeGreaterThan(m.steps);
    expect(alone.prefilledTokens).toBe(m.prefilledTokens);
    // 300 requests on 256 slots: two waves of 600 decode steps, the second at 44.
    expect(m.steps).toBeGreaterThanOrEqual(1200);
  });

  it("a request's TPOT spans its first token to its last, a neighbour's prefill in its steps included", () => {
    // Budget 10, prompts of 10 at 1 ms a token, decode steps of 10 ms, two slots. Step 1 prefills A (10 ms): A's
    // first token at 10 ms. Step 2: A decodes, B prefills 9 tokens (19 ms, t = 29). Step 3: A decodes, B its last
    // token (11 ms, t = 40): A's last, B's first. Step 4: B decodes, C prefills 9 (t = 59). Step 5: B decodes, C its
    // last (t = 70): B's last, C's first and only.
    const e: SpreadEngine = {
      slots: 2,
      poolTokens: 1e9,
      stepSeconds: () => 0.01,
      prefillSecondsPerToken: 0.001,
      budgetTokens: 10,
    };
    const b = spreadBurst(
      [
        { prompt: 10, output: 3 },
        { prompt: 10, output: 3 },
        { prompt: 10, output: 1 },
      ],
      e,
    );
    // A: (40 - 10) / 2 = 15 ms, its neighbour's prefill in its steps; B: (70 - 40) / 2 = 15 ms; the one-token
    // request counts none, as vllm bench serve's.
    expect(b.tpotRequests).toBe(2);
    expect(b.tpotSumSeconds).toBeCloseTo(0.03, 9);
    expect(b.ttftSumSeconds).toBeCloseTo(0.01 + 0.04 + 0.07, 9);
  });

  it('the mean TPOT over shuffles is the mean of their sums', () => {
    const e = { ...linearEngine(64, 1e9, 0.01, 0.0001), budgetTokens: 2048 };
    const r = spreadBurstSeconds(shapeOf('vllm'), 200, 217, 201, e);
    expect(r.burst.tpotRequests).toBeGreaterThan(150);
    const tpot = r.burst.tpotSumSeconds / r.burst.tpotRequests;
    // Every token after a request's first takes at least one decode step at the smallest batch.
    expect(tpot).toBeGreaterThanOrEqual(0.0101);
    expect(r.atMean.tpotRequests).toBe(200);
  });
});
