/**
 * SGLang before 0.4.7 serves AWQ/GPTQ int4 experts through vLLM 0.7.2's fused_marlin_moe, whose marlin_gemm_moe
 * launches one Marlin kernel per expert for each of a layer's two expert GEMMs (time/per-expert-moe.ts): a decode step
 * replays every one of them, routed tokens or not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import {
  EMPTY_GRAPH_KERNEL_SECONDS,
  perExpertMoeSeconds,
} from '../../src/core/time/per-expert-moe.js';
import { SERVING_GRAPH_KERNEL_SECONDS } from '../../src/core/engines/graph-kernel.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const QWEN3_SPEED_RELEASE = '0.4.6.post1'; // the Qwen3 speed page's SGLang
const moe = modelFacts(resolveModel('qwen3-30b-a3b'));
const dense = modelFacts(resolveModel('qwen3-8b'));
const base = defaultTimeOptions(1);
const at = (engineVersion?: string): TimeOptions => ({ ...base, engineVersion });
const int4 = (batch: number, framework: EstimateOptions['framework'] = 'sglang') => ({
  ...defaultOptions('inference'),
  framework,
  weights: 'int4' as const,
  batch,
  seq: 2049,
});
const hopper = { cc: 9, gap: SERVING_GRAPH_KERNEL_SECONDS };

describe("SGLang 0.4.6's per-expert Marlin MoE", () => {
  it('the profile names the release bound and the three kernels a call beside the experts', () => {
    expect(FRAMEWORKS.sglang.perExpertMarlinMoe).toEqual({ before: '0.4.7', kernelsPerCall: 3 });
    expect(FRAMEWORKS.vllm.perExpertMarlinMoe).toBeUndefined();
  });

  it("at one sequence: 48 layers x 2 calls of 3 kernels + 7 more routed experts at the gap, 120 idle at an empty kernel's", () => {
    expect(moe.moeLayers).toBe(48);
    expect(moe.experts).toBe(128);
    expect(moe.topK).toBe(8);
    const s = perExpertMoeSeconds(moe, int4(1), at(QWEN3_SPEED_RELEASE), 'gptq', hopper);
    const perCall = (3 + 7) * SERVING_GRAPH_KERNEL_SECONDS + 120 * EMPTY_GRAPH_KERNEL_SECONDS;
    expect(s).toBeCloseTo(48 * 2 * perCall, 12);
    expect(perExpertMoeSeconds(moe, int4(1), at(QWEN3_SPEED_RELEASE), 'marlin', hopper)).toBe(s);
  });

  it('prices none from 0.4.7, for an unknown release, other weights, a dense model, plain AWQ, AMD or pre-Ampere', () => {
    const t = at(QWEN3_SPEED_RELEASE);
    expect(perExpertMoeSeconds(moe, int4(1), at('0.4.7'), 'gptq', hopper)).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1), at('0.5.6.post1'), 'gptq', hopper)).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1), at(), 'gptq', hopper)).toBe(0);
    expect(perExpertMoeSeconds(moe, { ...int4(1), weights: 'fp8' }, t, 'cutlass', hopper)).toBe(0);
    expect(perExpertMoeSeconds(dense, int4(1), t, 'gptq', hopper)).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1), t, 'awq', hopper)).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1), t, 'gptq', { ...hopper, gfx: 'gfx942' })).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1), t, 'gptq', { ...hopper, cc: 7.5 })).toBe(0);
    expect(perExpertMoeSeconds(moe, int4(1, 'vllm'), t, 'gptq', hopper)).toBe(0);
  });

  it('grows with the batch as more experts are routed, between every expert empty and every expert at the gap', () => {
    const t = at(QWEN3_SPEED_RELEASE);
    const calls = moe.moeLayers * 2;
    const low = calls * (3 * hopper.gap + 127 * EMPTY_GRAPH_KERNEL_SECONDS);
    const high = calls * (3 + 127) * hopper.gap;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 511 }), (b) => {
        const s = perExpertMoeSeconds(moe, int4(b), t, 'gptq', hopper);
        const next = perExpertMoeSeconds(moe, int4(b + 1), t, 'gptq', hopper);
        return s >= low - 1e-12 && s <= high + 1e-12 && next >= s;
      }),
    );
  });

  it("adds exactly its seconds to a Qwen3-30B-A3B GPTQ decode step on an H20 at 0.4.6.post1's release", () => {
    const h20 = gpuRates(findGpu('h20'), base, true);
    const o = { ...int4(1), compile: true };
    const tq: TimeOptions = { ...at(QWEN3_SPEED_RELEASE), quantFormat: 'gptq' };
    const later: TimeOptions = { ...tq, engineVersion: '0.4.7' };
    const step = (tt: TimeOptions) => decodeStep(moe, o, tt, h20, true, 1025).stepSeconds;
    const expected = perExpertMoeSeconds(moe, o, tq, 'gptq', {
      cc: h20.cc,
      gap: SERVING_GRAPH_KERNEL_SECONDS,
    });
    expect(expected).toBeGreaterThan(0.015);
    expect(step(tq) - step(later)).toBeCloseTo(expected, 9);
  });
});
