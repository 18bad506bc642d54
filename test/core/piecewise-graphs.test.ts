// vLLM V1 before FULL_AND_PIECEWISE became its default captured decode in piecewise CUDA graphs and ran each layer's
// attention op eagerly from Python (TimeOptions.piecewiseGraphs): an MLA layer's decode path issues more torch calls
// than a K/V-head layer's, and the step waits for them (the engine's piecewiseAttentionCalls, time/piecewise.ts).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { VLLM_PIECEWISE_ATTENTION_CALLS } from '../../src/core/engines/vllm/piecewise.js';

const EAGER_OP = 10e-6; // time/train-work.ts EAGER_OP_SECONDS
const step = (model: string, o: object, time: Partial<TimeOptions> = {}) =>
  estimateTime(
    resolveModel(model),
    { ...defaultOptions('inference'), framework: 'vllm', batch: 1, seq: 192, ...o },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), ...time },
  ).stepSeconds;
const deepseek = { weights: 'int4', gpus: 8, tp: 8 };

describe('piecewise CUDA graphs (vLLM V1 before full decode graphs)', () => {
  it("an MLA model's step grows by its 61 layers x the MLA path's extra calls x one eager dispatch", () => {
    const extra = VLLM_PIECEWISE_ATTENTION_CALLS.mla - VLLM_PIECEWISE_ATTENTION_CALLS.kv;
    expect(extra).toBeGreaterThan(0);
    const d =
      step('deepseek-v3', deepseek, { piecewiseGraphs: true }) - step('deepseek-v3', deepseek);
    // stepSeconds has three significant figures (a ~17 ms step): within 1%.
    expect(d / (61 * extra * EAGER_OP)).toBeCloseTo(1, 1);
  });

  it('a model of K/V heads is unchanged (its eager calls hide behind the GPU)', () => {
    const o = { weights: 'bf16' };
    expect(step('llama-3.1-8b', o, { piecewiseGraphs: true })).toBe(step('llama-3.1-8b', o));
  });

  it('SGLang captures its whole decode step: unchanged', () => {
    const o = { ...deepseek, framework: 'sglang' };
    expect(step('deepseek-v3', o, { piecewiseGraphs: true })).toBe(step('deepseek-v3', o));
  });

  it('no flag, no change: the pinned vLLM replays one full graph per decode step', () => {
    expect(step('deepseek-v3', deepseek, { piecewiseGraphs: false })).toBe(
      step('deepseek-v3', deepseek),
    );
  });
});
