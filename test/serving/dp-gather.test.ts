// DP attention's gathers around the gathered MLPs, as SGLang runs them (layers/dp_attention.py and
// layers/communicator.py in the sglang 0.4.4.post2, 0.5.7 and 0.5.14 wheels): every decoder layer gathers, an extend
// step all-reduces a buffer of every rank's summed tokens, and releases before DPPaddingMode all-reduce a decode step's
// tokens too. vLLM's profile names none of it: its MoE layers all-gather and reduce-scatter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { extendGatherSeconds, gatherSeconds } from '../../src/core/time/expert-parallel.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const dsv3 = resolveModel('deepseek-v3');

function setup(framework: string, prompt = 1000) {
  const all = {
    method: 'inference',
    framework,
    weights: 'fp8',
    gpus: 8,
    tp: 1,
    'dp-attention': true,
    batch: 16,
    seq: prompt + 10,
    'prompt-tokens': prompt,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  const t = defaultTimeOptions(1);
  const m = modelFacts(dsv3);
  const r = gpuRates(findGpu('h200-sxm'), t);
  return { o, t, m, r };
}

describe("DP attention's gathers", () => {
  it('SGLang gathers in every decoder layer (the dense MLPs too), vLLM in its MoE layers', () => {
    const s = setup('sglang');
    const v = setup('vllm');
    expect(FRAMEWORKS.sglang.dpGather?.everyLayer).toBe(true);
    expect(FRAMEWORKS.vllm.dpGather).toBeUndefined();
    expect(s.m.layers).toBeGreaterThan(s.m.moeLayers);
    const ratio = gatherSeconds(s.m, s.o, s.r, 128, s.t) / gatherSeconds(v.m, v.o, v.r, 128, v.t);
    expect(ratio).toBeCloseTo(s.m.layers / s.m.moeLayers, 9);
  });

  it('property: a release before DPPaddingMode moves twice the bytes a decode step (an all-reduce of the summed tokens)', () => {
    const { o, t, m, r } = setup('sglang');
    const old = { ...t, engineVersion: '0.4.4.post2' };
    const now = { ...t, engineVersion: '0.5.7' };
    const base = (tt: typeof t) => gatherSeconds(m, o, r, 0, tt);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20000 }), (tokens) => {
        const before = gatherSeconds(m, o, r, tokens, old) - base(old);
        const after = gatherSeconds(m, o, r, tokens, now) - base(now);
        expect(before).toBeGreaterThan(0);
        expect(before / after).toBeCloseTo(2, 9);
      }),
    );
    // No release named: the all-gather and reduce-scatter of the current releases.
    expect(gatherSeconds(m, o, r, 128, t)).toBeCloseTo(gatherSeconds(m, o, r, 128, now), 12);
  });

  it("property: an extend step's all-reduces carry the prompt's tokens, twice a decode all-gather's bytes, no latency", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 32000 }), (prompt) => {
        const { o, t, m, r } = setup('sglang', prompt);
        const now = { ...t, engineVersion: '0.5.7' };
        const bytesOnly = gatherSeconds(m, o, r, prompt, now) - gatherSeconds(m, o, r, 0, now);
        expect(extendGatherSeconds(m, o, r, now)).toBeCloseTo(2 * bytesOnly, 12);
      }),
      { numRuns: 30 },
    );
    const v = setup('vllm');
    expect(extendGatherSeconds(v.m, v.o, v.r, v.t)).toBe(0);
  });

  it('one attention rank has nothing to gather', () => {
    const all = {
      method: 'inference',
      framework: 'sglang',
      weights: 'fp8',
      gpus: 8,
      tp: 8,
      batch: 16,
      seq: 1010,
    };
    const o = withEngineDefaults(optionsFromFlags(all), all);
    const t = defaultTimeOptions(1);
    const m = modelFacts(dsv3);
    const r = gpuRates(findGpu('h200-sxm'), t);
    expect(extendGatherSeconds(m, o, r, t)).toBe(0);
    expect(gatherSeconds(m, o, r, 128, t)).toBe(0);
  });
});
