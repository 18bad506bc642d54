// llama.cpp builds before ggml-cuda's op fusion launched every op of build_llama's decode graph: 24 kernels a layer
// and a q8_1 quantization kernel before each quantized matmul, each a graph gap (TimeOptions.unfusedGraph, the
// engine's unfusedDecodeKernels), in place of a compiled layer's 12.
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
  weights: 'q4_k_m',
  batch: 1,
  seq: 128,
} as const;
const step = (time: Partial<TimeOptions> = {}, o: object = {}) =>
  estimateTime(resolveModel('llama-2-7b'), { ...base, ...o }, findGpu('h100-pcie'), {
    ...defaultTimeOptions(1),
    decodeOnly: true,
    ...time,
  }).stepSeconds;

// llama.cpp's graph gap on this card: its cycles at the card's SM clock (FrameworkProfile.graphKernelCycles).
const GAP = graphKernelSecondsOf(
  FRAMEWORKS['llama.cpp'],
  gpuRates(findGpu('h100-pcie'), defaultTimeOptions(1)).smClock,
);

describe('unfused ggml decode graph', () => {
  it('Q4_K_M: 32 layers x (24 + 7 quantize - 12) kernels x the card graph gap more a step', () => {
    // 32 x 19 gaps (2.5 us each on an H100 SXM: 1.52 ms) (stepSeconds has three significant figures: within 1%).
    expect((step({ unfusedGraph: true }) - step()) / (32 * 19 * GAP)).toBeCloseTo(1, 2);
  });

  it('F16: no quantize kernels, 32 x (24 - 12) graph gaps', () => {
    const f16 = { weights: 'fp16' };
    expect((step({ unfusedGraph: true }, f16) - step({}, f16)) / (32 * 12 * GAP)).toBeCloseTo(1, 2);
  });

  it("flash attention: a layer's attention one kernel, 32 x 3 graph gaps less a step", () => {
    const fa = { attention: 'flash' };
    expect(
      (step({ unfusedGraph: true }) - step({ unfusedGraph: true }, fa)) / (32 * 3 * GAP),
    ).toBeCloseTo(1, 1);
    // a fused build's count does not depend on it
    expect(step({}, fa)).toBe(step());
  });

  it('an engine without an unfused graph is unchanged', () => {
    const vllm = { framework: 'vllm', weights: 'bf16' };
    expect(step({ unfusedGraph: true }, vllm)).toBe(step({}, vllm));
  });
});
