// SGLang runs each prefill batch as a forward of its own (get_next_batch_to_run: "Run prefill first if possible";
// enable_mixed_chunk off by default; engines/sglang/memory.ts server.prefillFirst): a step that prefills one short
// prompt still reads the weights its tokens route to. time/length-spread.ts prefillStepPricer prices it so.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { prefillStepPricer, spreadBatchSeconds } from '../../src/core/time/length-spread.js';
import { modelFacts, servedArch } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const QWEN3_30B_A3B = 'calibration/configs/Qwen__Qwen3-30B-A3B.json';
const PROMPT = 256;

const setup = (framework: string) => {
  const f: Record<string, unknown> = {
    method: 'inference',
    framework,
    batch: 8,
    'prompt-tokens': PROMPT,
    seq: PROMPT + 2,
    gpu: 'h100-sxm',
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const gpu = findGpu('h100-sxm');
  const t = defaultTimeOptions(o.gpus);
  const arch = resolveModel(QWEN3_30B_A3B);
  const m = modelFacts(servedArch(arch, o));
  const r = gpuRates(gpu, t, true);
  return { o, t, gpu, arch, m, r };
};

describe("SGLang's lone prefill step", () => {
  const { o, t, gpu, arch, m, r } = setup('sglang');
  // 256 tokens over 128 experts top-8 route to all but 128 x (1 - 8/128)^256 (under 1e-5) of them: every expert's
  // bf16 weights cross HBM once, whatever the step's sequences.
  const allWeights = (m.linearTotal * 2) / o.tp / r.mem;

  it('Qwen3-30B-A3B bf16 on one H100: one 256-token prompt reads every expert once', () => {
    const price = prefillStepPricer(m, o, t, r, PROMPT, 0);
    expect(price(PROMPT)).toBeGreaterThanOrEqual(0.99 * allWeights);
  });

  it('requests that arrive one at a time each wait for a forward that reads the weights', () => {
    const flat = { levels: [0, 100], prompt: [PROMPT, PROMPT], output: [2, 2] };
    const run = { slots: 8, poolTokens: 1e6, wave: 8, budgetTokens: 8192 };
    // One a second: each request finds the engine idle, its prefill a step of its own.
    const b = spreadBatchSeconds(arch, o, gpu, { ...t, requestRate: 1 }, flat, run, 0);
    expect(b.burst.ttftSumSeconds / 8).toBeGreaterThanOrEqual(0.99 * allWeights);
  });

  it('a step costs no less than its tokens at the full chunk, and no less for more tokens', () => {
    const price = prefillStepPricer(m, o, t, r, PROMPT, 1e-6);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8192 }), fc.integer({ min: 1, max: 8192 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(price(lo)).toBeGreaterThanOrEqual(lo * 1e-6);
        expect(price(hi)).toBeGreaterThanOrEqual(price(lo) * (1 - 1e-9));
      }),
      { numRuns: 200 },
    );
  });
});
