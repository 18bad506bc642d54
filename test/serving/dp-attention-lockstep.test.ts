// DP attention's lockstep: every rank steps with the one that prefills (SGLang prepare_mlp_sync_batch_raw, vLLM's
// aligned forward passes), so a request's TPOT carries the prefills of the whole engine's arrivals.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { dpAttentionStep, lockstepStalls } from '../../src/core/time/expert-parallel.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { meanContextOf } from '../../src/schema/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const gpu = findGpu('mi300x');
const dsv3 = resolveModel('deepseek-v3');

function setup(framework: string) {
  const all = {
    method: 'inference',
    framework,
    weights: 'fp8',
    gpus: 8,
    tp: 1,
    'dp-attention': true,
    ep: 8,
    batch: 11,
    seq: 490,
    'prompt-tokens': 302,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  const t = defaultTimeOptions(1);
  const m = modelFacts(dsv3);
  const r = gpuRates(gpu, t);
  return { o, t, m, r, step: dpAttentionStep(m, o, t, r, meanContextOf(o)) };
}

describe("DP attention's lockstep", () => {
  it('SGLang: the own rank loses the whole prefill step, every other rank waits out what exceeds its decode step', () => {
    const { o, t, m, r, step } = setup('sglang');
    expect(FRAMEWORKS.sglang.dpPrefillStepEager).toBe(true);
    // A prefill of 1 s on one rank: the step lasts it plus the MoE layers over the gathered tokens (>= 0).
    const { prefillStep, stall } = lockstepStalls(m, o, t, r, { whole: 1, inStep: 0.5 }, step);
    expect(prefillStep).toBeGreaterThan(1);
    expect(prefillStep).toBeLessThan(1 + step);
    // 11 a rank over 8 ranks: its own rank's 10 other arrivals whole, the 77 elsewhere less the step they decode in.
    expect(stall).toBeCloseTo(prefillStep * 10 + (prefillStep - step) * 77, 9);
  });

  it('SGLang: a prefill shorter than the decode step stalls the other ranks not at all', () => {
    const { o, t, m, r, step } = setup('sglang');
    const { prefillStep, stall } = lockstepStalls(m, o, t, r, { whole: 0, inStep: 0 }, step);
    expect(prefillStep).toBeLessThanOrEqual(step + 1e-12);
    expect(stall).toBeCloseTo(prefillStep * 10, 9);
  });

  it("vLLM: a prompt rides a decode step, and every one of the engine's other 87 arrivals grows every rank's", () => {
    const { o, t, m, r, step } = setup('vllm');
    expect(FRAMEWORKS.vllm.prefillInDecodeStep).toBe(true);
    const { prefillStep, stall } = lockstepStalls(m, o, t, r, { whole: 1, inStep: 0.5 }, step);
    expect(prefillStep).toBe(1);
    expect(stall).toBeCloseTo(0.5 * 87, 9);
  });
});
