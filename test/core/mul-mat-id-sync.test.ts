// llama.cpp's Mixtral-era MUL_MAT_ID: one op per expert slot and projection, each copying the routing ids to the
// host and synchronizing the stream (TimeOptions.mulMatIdSync, the engine's expertIdsSyncSeconds).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { graphKernelSecondsOf } from '../../src/core/time/decode-host.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';

const base = {
  ...defaultOptions('inference'),
  framework: 'llama.cpp',
  weights: 'q5_k_m',
  batch: 1,
  seq: 130,
} as const;
const step = (model: string, time: Partial<TimeOptions> = {}, o: object = {}) =>
  estimateTime(resolveModel(model), { ...base, ...o }, findGpu('a100-80gb-pcie'), {
    ...defaultTimeOptions(1),
    decodeOnly: true,
    ...time,
  }).stepSeconds;

// llama.cpp's graph gap on this card: its cycles at the card's SM clock (FrameworkProfile.graphKernelCycles).
const GAP = graphKernelSecondsOf(
  FRAMEWORKS['llama.cpp'],
  gpuRates(findGpu('a100-80gb-pcie'), defaultTimeOptions(1)).smClock,
);

describe('MUL_MAT_ID host round trip per expert slot', () => {
  it('adds 3 projections x top-k slots x MoE layers round trips of 11.8 us to a Mixtral step', () => {
    // Mixtral-8x7B: 32 MoE layers, top-2, gated experts: 32 x 3 x 2 = 192 ops x 11.8 us = 2.2656 ms; and the
    // per-slot layer's own kernels at a graph gap each (the card's, GAP): routing 8 + 2 slots x (3 mat-vecs + SiLU and the
    // gate product + weight multiply and add) - 1 - the dense count (3 mat-vecs + 2) = 16 a layer, where today's fused
    // graph routes in 4 (router, topk_moe, mul, one fused add: engines/llama-cpp/moe-kernels.ts): 12 a layer, 384 a step.
    const extra = step('mixtral-8x7b-v0.1', { mulMatIdSync: true }) - step('mixtral-8x7b-v0.1');
    // (stepSeconds is rounded to three significant figures: within 1%.)
    expect(extra / (192 * 11.8e-6 + 384 * GAP)).toBeCloseTo(1, 2);
  });

  it('counts each slot projection its activation-quantizing kernel in an unfused GGUF build', () => {
    // With the unfused count each quantized linear has its quantize_row_q8_1 kernel: 2 slots x 3 projections x 2
    // kernels, SiLU, the gate product, weight multiply and add, routing 8, less 1 and the dense count (3 x 2 + 2 and
    // the router's quantizing kernel the dense count holds): 8 + 2 x 10 - 1 - 9 = 18 a layer, where the same unfused
    // graph without the round trip routes in 8 (router, softmax, argsort, get_rows, sum_rows, clamp, div, mul and one
    // add, less the router's count the dense layer holds: moe-kernels.ts): 10 a layer, 320 a step.
    const unfused = { unfusedGraph: true };
    const extra =
      step('mixtral-8x7b-v0.1', { ...unfused, mulMatIdSync: true }) -
      step('mixtral-8x7b-v0.1', unfused);
    expect(extra / (192 * 11.8e-6 + 320 * GAP)).toBeCloseTo(1, 2);
  });

  it('leaves a dense model and an engine without the round trip unchanged', () => {
    expect(step('llama-2-7b', { mulMatIdSync: true })).toBe(step('llama-2-7b'));
    const vllm = { framework: 'vllm', weights: 'bf16' };
    expect(step('mixtral-8x7b-v0.1', { mulMatIdSync: true }, vllm)).toBe(
      step('mixtral-8x7b-v0.1', {}, vllm),
    );
  });
});
