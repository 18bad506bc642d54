// `estimate`'s `time.burst` runs the burst step by step on the KV pool (time/stepped-burst.ts): the duration it
// reports is what `validate --throughput` scores a saturated burst of the same flags by.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { casePool, steppedBurstSeconds } from '../../src/commands/validate-throughput.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { estimateTime } from '../../src/core/time/index.js';
import { staticBatchSeconds } from '../../src/core/time/serving-request.js';
import { spreadBatchSeconds } from '../../src/core/time/length-spread.js';
import { STEPPED_BURST_MAX_REQUESTS, steppedRunOf } from '../../src/core/time/stepped-burst.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const QWEN14 = 'calibration/configs/Qwen__Qwen3-14B.json';
const setup = (flags: Record<string, unknown>, model: string) => {
  const f: Record<string, unknown> = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const gpu = findGpu(String(f.gpu));
  const t = defaultTimeOptions(o.gpus);
  const arch = resolveModel(model);
  return { o, t, gpu, arch, e: buildEstimate(arch, o, gpu, t) };
};

describe("estimate's burst is the one validate scores", () => {
  const flags = {
    framework: 'vllm',
    batch: 500,
    'prompt-tokens': 2005,
    seq: 2105,
    gpu: 'h100-sxm',
  };
  const { o, t, gpu, arch, e } = setup(flags, QWEN14);
  const b = e.time!.burst!;

  it('Qwen3-14B bf16 on one H100, 500 prompts of 2,005 tokens: the pool holds about 128, the rest wait', () => {
    expect(e.serving!.sequencesAtMeanContext).toBeLessThan(500);
    expect(b.durationSeconds).toBeDefined();
    const scored = steppedBurstSeconds({}, arch, o, gpu, t, casePool({}, arch, o, gpu, t));
    expect(b.durationSeconds).toBe(scored);
    expect(b.outputTokensPerSecond / ((500 * 100) / b.durationSeconds!)).toBeCloseTo(1, 3);
    expect(b.ttftMaxSeconds).toBeGreaterThanOrEqual(b.ttftMeanSeconds);
    expect(b.ttftMaxSeconds).toBeLessThan(b.durationSeconds!);
  });

  it("the planner's figure (no pool tokens) keeps the static model; the steady state is the same", () => {
    const plain = estimateTime(arch, o, gpu, t, e.serving!.sequencesAtMeanContext);
    expect(plain.burst!.durationSeconds).toBeUndefined();
    expect({ ...plain, burst: undefined }).toEqual({ ...e.time!, burst: undefined });
  });
});

/**
 * Lower bounds of a burst: its N x (out - 1) decode tokens each cost at least a step of the most sequences that
 * run at once at the prompt's context (the cheapest a token is: a step's cost per sequence falls as the batch grows
 * and rises with the context), and where the pool holds every request, the static batch (every prefill, then out -
 * 1 steps of the whole batch at the mean context) to the 16-token context grain the stepped run times steps at.
 */
describe('burst bounds and monotonicity', () => {
  const configs: [string, string, string][] = [
    [QWEN14, 'h100-sxm', 'vllm'],
    [QWEN14, 'h100-sxm', 'sglang'],
    ['llama-3.1-8b', 'l40s', 'vllm'],
    ['calibration/configs/Qwen__Qwen2.5-1.5B.json', 'rtx-4090', 'sglang'],
  ];
  const burstOf = (model: string, gpu: string, framework: string, f: Record<string, number>) =>
    setup({ framework, gpu, ...f }, model);

  it('never shorter than its decode at the running batch, nor than the static batch the pool holds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.integer({ min: 16, max: 3000 }),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 2, max: 600 }),
        ([model, gpu, fw], prompt, out, batch) => {
          const f = { batch, seq: prompt + out, 'prompt-tokens': prompt };
          const { o, t, gpu: g, arch, e } = burstOf(model, gpu, fw, f);
          const d = e.time!.burst!.durationSeconds!;
          const c = Math.min(batch, Math.floor(e.serving!.sequencesAtMeanContext));
          if (c < 1) return;
          const step = estimateTime(arch, { ...o, batch: c, seq: prompt + 1 }, g, t).stepSeconds;
          expect(d).toBeGreaterThanOrEqual(((batch * (out - 1)) / c) * step);
          if (c === batch)
            expect(d).toBeGreaterThanOrEqual(0.999 * staticBatchSeconds(arch, o, g, t));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('more requests never shorten the burst (to a step-packing give of 0.1%)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.integer({ min: 16, max: 3000 }),
        fc.integer({ min: 2, max: 300 }),
        fc.integer({ min: 2, max: 500 }),
        fc.integer({ min: 1, max: 100 }),
        ([model, gpu, fw], prompt, out, batch, more) => {
          const at = (n: number) =>
            burstOf(model, gpu, fw, { batch: n, seq: prompt + out, 'prompt-tokens': prompt }).e
              .time!.burst!.durationSeconds!;
          expect(at(batch + more)).toBeGreaterThanOrEqual(0.999 * at(batch));
        },
      ),
      { numRuns: 30 },
    );
  });
});

// Past STEPPED_BURST_MAX_REQUESTS the burst is not run request by request (its cost grows with the requests): the
// runs of half the bound and of the bound are continued on their line. Bounded cost, close to the full run, and never
// below the bound's own figure.
describe('a burst past the stepped bound', () => {
  const flags = {
    framework: 'vllm',
    'prompt-tokens': 1024,
    seq: 1536,
    gpu: 'h100-sxm',
    'max-num-seqs': 256,
  };
  const at = (batch: number) => setup({ ...flags, batch }, 'llama-3.1-8b');

  it('is extrapolated within 2% of the full step-by-step run, and never shorter than at the bound', () => {
    const n = STEPPED_BURST_MAX_REQUESTS + 2048;
    const { o, t, gpu, arch, e } = at(n);
    const run = steppedRunOf(o, gpu, t, e.serving!.sequencesAtMeanContext, {
      poolTokens: e.serving!.kvTokens!,
    })!;
    const [prompt, out] = [1024, 512];
    const flat = { levels: [0, 100], prompt: [prompt, prompt], output: [out, out] };
    const full = spreadBatchSeconds(arch, o, gpu, t, flat, run, 0).seconds;
    const d = e.time!.burst!.durationSeconds!;
    expect(Math.abs(d / full - 1)).toBeLessThan(0.02);
    const bound = at(STEPPED_BURST_MAX_REQUESTS).e.time!.burst!.durationSeconds!;
    expect(d).toBeGreaterThan(bound);
  });
});
