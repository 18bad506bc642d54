// The planner times a serving plan whose KV pool holds fewer sequences than its batch as `estimate` does
// (time/pool-queue.ts): the sequences the pool holds run, the rest queue. Llama-4-Scout in fp8 at TP 2 on two H100
// leaves SGLang a pool of 28 of its 32 sequences at the mean context of 6,144.
import { afterAll, describe, expect, it } from 'vitest';
import { plan, planReplicas } from '../../src/core/plan/index.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { estimatedRate, inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

const input = inputOf('serve-8b-64-users-24gb.yaml', (s) => {
  s.model = 'llama-4-scout-17b-16e';
  s.job = { kind: 'inference', context: 8192, concurrency: 32, outputTokens: 100_000_000 };
  // Rented: at the board's power (an owned GPU's searched power limits time it slower than `estimate`'s default).
  s.hardware = {
    ...s.hardware,
    owned: [],
    rent: { gpus: ['h100-sxm'], kinds: ['on-demand'] },
    counts: { min: 1, max: 2 },
  };
  s.rank = 'cost';
  s.power = { ...s.power, circuits: [] };
  s.expect = undefined;
});

/** Relative agreement within estimate's rounding (four significant figures). */
const close = (a: number, b: number) => expect(Math.abs(a / b - 1)).toBeLessThan(6e-4);

describe('a serving plan whose KV pool is short of its batch', () => {
  const r = plan({ ...input, top: 40 });
  const gpu = findGpu('h100-sxm');

  it('ranks by the tokens/s, step and latency that estimate gives the same options', () => {
    const short = r.plans.filter(
      (p) => p.serving !== undefined && p.serving.sequencesAtMeanContext < p.options.batch,
    );
    expect(short.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      const e = buildEstimate(input.arch, p.options, gpu, defaultTimeOptions(p.options.gpus)).time!;
      const rate = estimatedRate(input.arch, p, gpu);
      expect(Math.abs(p.time.tokensPerSecond / rate - 1)).toBeLessThan(2e-3);
      expect(p.time.stepSeconds).toBe(e.stepSeconds);
      if (e.ttftSeconds !== undefined) close(p.time.ttftSeconds!, e.ttftSeconds);
    }
  });

  it('times the queued plan at the sequences its pool holds, slower than all 32 at once', () => {
    // The plan that queues the most: its held sequences' decode rate binds, not their latency.
    const gap = (q: (typeof r.plans)[number]) =>
      q.options.batch - (q.serving?.sequencesAtMeanContext ?? q.options.batch);
    const p = r.plans.reduce((a, q) => (gap(q) > gap(a) ? q : a));
    expect(gap(p)).toBeGreaterThan(0);
    const c = p.serving!.sequencesAtMeanContext;
    const atPool = buildEstimate(
      input.arch,
      { ...p.options, batch: c },
      gpu,
      defaultTimeOptions(p.options.gpus),
    ).time!;
    close(p.time.tokensPerSecond, atPool.decodeTokensPerSecond! * p.choices.dp);
    expect(p.time.ttftSeconds!).toBeGreaterThan(10 * atPool.ttftSeconds!);
  });

  it("gives the fleet's per-source plans the same queued latency", () => {
    const light = planReplicas({ ...input, top: 40 });
    expect(light.map((p) => p.id)).toEqual(r.plans.map((p) => p.id));
    light.forEach((p, i) => {
      expect(p.time.ttftSeconds).toBe(r.plans[i]!.time.ttftSeconds);
      expect(p.time.tpotSeconds).toBe(r.plans[i]!.time.tpotSeconds);
    });
  });
});
