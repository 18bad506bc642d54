// A paged KV pool that holds fewer sequences than --batch (time/pool-queue.ts): the sequences it holds run, the rest
// queue. Qwen3-32B bf16 on one H100 leaves a pool of about 26,000 tokens: a dozen requests of 2,100.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const MODEL = 'calibration/configs/Qwen__Qwen3-32B.json';
const run = (flags: Record<string, unknown>, model = MODEL, gpu = 'h100-sxm') => {
  const f = { method: 'inference', framework: 'vllm', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const arch = resolveModel(model);
  const t = defaultTimeOptions(o.gpus);
  return { o, arch, t, gpu: findGpu(gpu), e: buildEstimate(arch, o, findGpu(gpu), t) };
};

describe('a batch the KV pool cannot hold', () => {
  const flags = { batch: 500, seq: 2100, 'prompt-tokens': 2000 };
  const { o, arch, t, gpu, e } = run(flags);
  const c = e.serving!.sequencesAtMeanContext;
  const atPool = estimateTime(arch, { ...o, batch: c }, gpu, t);
  const time = e.time!;
  const out = 100;

  it('runs the sequences the pool holds: their step, rates and TPOT', () => {
    expect(e.fits).toBe(false);
    expect(c).toBeGreaterThanOrEqual(1);
    expect(c).toBeLessThan(500);
    expect(time.stepSeconds).toBe(atPool.stepSeconds);
    expect(time.decodeTokensPerSecond).toBe(atPool.decodeTokensPerSecond);
    expect(time.tpotSeconds).toBe(atPool.tpotSeconds);
  });

  it('queues the rest: a closed loop of 500 clients waits (500 / c - 1) services before its first token', () => {
    const service = atPool.ttftSeconds! + (out - 1) * atPool.tpotSeconds!;
    // Reported to four significant figures.
    expect(time.ttftSeconds! / (atPool.ttftSeconds! + (500 / c - 1) * service)).toBeCloseTo(1, 3);
    // Without the pool every request would decode at once, 500 to a step.
    const uncapped = estimateTime(arch, o, gpu, t);
    expect(uncapped.tpotSeconds!).toBeGreaterThan(5 * time.tpotSeconds!);
  });

  it("without the pool's tokens (the planner's figure) runs a burst of 500 as 500 / c bursts of c", () => {
    const b = estimateTime(arch, o, gpu, t, c).burst!;
    const one = atPool.burst!;
    expect(b.requests).toBe(500);
    expect(b.outputTokensPerSecond).toBe(one.outputTokensPerSecond);
    // The last request waits for every prompt's chunks and for the decodes of the waves before its own.
    const wave = (c * out) / one.outputTokensPerSecond;
    const chunk = one.ttftMaxSeconds / one.prefillSteps;
    const last = b.prefillSteps * chunk + (500 / c - 1) * (wave - one.ttftMaxSeconds);
    expect(b.ttftMaxSeconds / last).toBeCloseTo(1, 3);
    expect(b.ttftMaxSeconds).toBeGreaterThanOrEqual(b.ttftMeanSeconds);
    expect(b.prefillSteps).toBe(Math.ceil((500 * 2000) / b.chunkTokens));
  });

  it('leaves a batch the pool holds as it was', () => {
    const small = run({ ...flags, batch: 8 });
    expect(small.e.serving!.sequencesAtMeanContext).toBe(8);
    const pool = { poolTokens: small.e.serving!.kvTokens };
    expect(small.e.time).toEqual(
      estimateTime(small.arch, small.o, small.gpu, small.t, undefined, false, pool),
    );
  });

  it("keeps --batch's time where the weights leave the pool nothing (the fit verdict says so)", () => {
    const big = run({ batch: 4, seq: 4096 }, 'deepseek-v3');
    expect(big.e.serving!.sequencesAtMeanContext).toBeLessThan(1);
    const pool = { poolTokens: big.e.serving!.kvTokens };
    expect(big.e.time).toEqual(
      estimateTime(big.arch, big.o, big.gpu, big.t, undefined, false, pool),
    );
  });
});

describe('a smaller pool never shortens a burst', () => {
  // A burst of --batch served c at a time (time/pool-queue.ts): B / c waves of one burst of c, whose prefill is
  // priced by its prompt tokens (time/burst.ts). Fewer running never finishes the run earlier; a wave whose prompts
  // spill a few tokens into one more prefill step pays that step's weight read, the only give (under 1%).
  const wall = (flags: Record<string, unknown>, pool: number, model: string, gpu: string) => {
    const { o, arch, t, gpu: g } = run(flags, model, gpu);
    const b = estimateTime(arch, o, g, t, pool).burst!;
    return (o.batch * (o.seq - (o.promptTokens ?? 0))) / b.outputTokensPerSecond;
  };
  it("where one more running sequence's prompt spills into a second prefill step", () => {
    // 37 prompts of 217 tokens fill 8,029 of the 8,192-token step, 38 spill 54 tokens into a second step.
    const flags = { batch: 1000, seq: 418, 'prompt-tokens': 217 };
    expect(wall(flags, 37, MODEL, 'h100-sxm')).toBeGreaterThan(wall(flags, 38, MODEL, 'h100-sxm'));
  });

  it('on dense and MoE models, H100 and L40S', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          [MODEL, 'h100-sxm'],
          ['calibration/configs/Qwen__Qwen3-30B-A3B.json', 'l40s'],
          ['llama-3.1-8b', 'l40s'],
        ),
        fc.integer({ min: 16, max: 3000 }),
        fc.integer({ min: 2, max: 1000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 400 }),
        ([model, gpu], prompt, out, c1, dc) => {
          const c2 = c1 + dc;
          const flags = { batch: 1000, seq: prompt + out, 'prompt-tokens': prompt };
          const small = wall(flags, c1, model, gpu);
          const large = wall(flags, c2, model, gpu);
          expect(small).toBeGreaterThanOrEqual(large * 0.99);
        },
      ),
      { numRuns: 40 },
    );
  });
});
