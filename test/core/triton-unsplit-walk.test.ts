/**
 * vLLM v0.10.1's Triton unified attention (the backend a model with attention sinks runs on ROCm and on CUDA GPUs
 * other than 9.x and 10.0) splits each sequence's keys into segments only while its grid of (rows // BLOCK_Q + rows)
 * x K/V heads stays within 128; beyond that kernel_unified_attention_2d runs one program a query block and K/V head
 * that walks its sequence's cache blocks from the first, one block a tile, sliding-window layers included
 * (time/piecewise.ts unsplitTritonLayers). On an AMD GPU each tile waits an HBM round trip
 * (time/decode-attention.ts unsplitChainSeconds).
 */
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { unsplitChainSeconds } from '../../src/core/time/decode-attention.js';
import { unsplitTritonLayers } from '../../src/core/time/piecewise.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const gptoss = modelFacts(resolveModel('gpt-oss-20b'));
const vllm = FRAMEWORKS.vllm;
const pw = { ...defaultTimeOptions(1), piecewiseGraphs: true };
const layers = (cc: number, rows: number, t = pw) =>
  unsplitTritonLayers(gptoss, vllm, t, { cc, rows, tp: 1 });
const CDNA_HBM_LATENCY_S = 0.5e-6; // time/decode-attention.ts, MI300X (Kog AI)

function step(gpu: string, batch: number, piecewise: boolean): number {
  const o = {
    ...defaultOptions('inference'),
    framework: 'vllm' as const,
    weights: 'mxfp4' as const,
    batch,
    seq: 2067,
  };
  const t = { ...defaultTimeOptions(1), piecewiseGraphs: piecewise, serialScheduler: true };
  return decodeStep(gptoss, o, t, gpuRates(findGpu(gpu), t, true), true, 1567).stepSeconds;
}

describe("Triton unified attention's unsplit kernel (vLLM v0.10.1, piecewise graphs)", () => {
  it('gpt-oss-20b on ROCm: its 24 layers run the unsplit kernel from 12 sequences, none up to 11', () => {
    // BLOCK_Q = 16 / (64 / 8) = 2: (11 // 2 + 11) x 8 = 128 still splits, (12 // 2 + 12) x 8 = 144 does not.
    for (const rows of [1, 4, 8, 11]) expect(layers(0, rows)).toBe(0);
    for (const rows of [12, 16, 64]) expect(layers(0, rows)).toBe(24);
  });

  it('only where the step runs the Triton backend: not on Hopper (FA3) nor on Blackwell (FlashInfer)', () => {
    expect(layers(9, 16)).toBe(0);
    expect(layers(10, 16)).toBe(0);
    expect(layers(8, 16)).toBe(24);
  });

  it('full decode graphs (the pinned vLLM): not counted', () => {
    expect(layers(0, 16, { ...pw, piecewiseGraphs: false })).toBe(0);
  });

  it('on an MI300X each layer walks ceil(context / 16) cache blocks, one HBM round trip each', () => {
    const r = gpuRates(findGpu('mi300x'), pw, true);
    const s = { ctx: 1567, unsplitLayers: 24 };
    expect(unsplitChainSeconds(gptoss, vllm, r, s)).toBeCloseTo(
      24 * Math.ceil(1567 / 16) * CDNA_HBM_LATENCY_S,
      12,
    );
    expect(unsplitChainSeconds(gptoss, vllm, r, { ctx: 1567 })).toBe(0);
    // NVIDIA GPUs are not priced.
    const a100 = gpuRates(findGpu('a100-80gb-sxm'), pw, true);
    expect(unsplitChainSeconds(gptoss, vllm, a100, s)).toBe(0);
  });

  it('the MI300X step at 16 sequences lengthens by the walk; at 8 it does not', () => {
    const walk = 24 * Math.ceil(1567 / 16) * CDNA_HBM_LATENCY_S;
    expect(step('mi300x', 16, true) - step('mi300x', 16, false)).toBeGreaterThan(walk * 0.9);
    expect(step('mi300x', 8, true) - step('mi300x', 8, false)).toBeLessThan(walk * 0.5);
  });
});
