// A graph kernel's boundary priced in SM cycles where the engine counts it so (FrameworkProfile.graphKernelCycles)
// and the catalog gives the card's SM count (GpuRates.smClock); seconds otherwise.
import { describe, expect, it } from 'vitest';
import { decodeHost, graphKernelSecondsOf } from '../../src/core/time/decode-host.js';
import {
  SERVING_GRAPH_KERNEL_CYCLES,
  SERVING_GRAPH_KERNEL_SECONDS,
} from '../../src/core/engines/graph-kernel.js';
import { GRAPH_KERNEL_SECONDS } from '../../src/core/time/train-work.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true };
const opts = (framework: string): EstimateOptions =>
  ({ ...defaultOptions('inference'), framework, weights: 'q4_k_m', seq: 128 }) as EstimateOptions;
const m = modelFacts(resolveModel('llama-2-7b'));
const clock = (gpu: string) => gpuRates(findGpu(gpu), t).smClock;
const gaps = (framework: string, gpu: string) =>
  decodeHost(m, opts(framework), t, 'gguf', clock(gpu)).gaps;

describe('SM clock from the catalog', () => {
  it("SM cycles a second over the catalog's SM count: each card's boost clock", () => {
    expect(clock('rtx-4090')! / 1e9).toBeCloseTo(2.52, 2);
    expect(clock('a100-80gb-sxm')! / 1e9).toBeCloseTo(1.41, 2);
    expect(clock('h100-sxm')! / 1e9).toBeCloseTo(1.98, 2);
    expect(clock('h100-pcie')! / 1e9).toBeCloseTo(1.75, 2);
  });

  it('none where the catalog gives no SM count (AMD, Apple)', () => {
    expect(clock('mi300x')).toBeUndefined();
    expect(clock('apple-m2-ultra-192gb')).toBeUndefined();
  });
});

describe("llama.cpp's graph kernel in SM cycles", () => {
  it('the same cycles a kernel on every NVIDIA card: the gaps scale with 1 / SM clock', () => {
    const ratio = gaps('llama.cpp', 'rtx-4090') / gaps('llama.cpp', 'a100-80gb-sxm');
    expect(ratio).toBeCloseTo(clock('a100-80gb-sxm')! / clock('rtx-4090')!, 10);
    expect(ratio).toBeLessThan(0.6);
  });

  it('2.5 µs a kernel at the H100 SXM clock (the shared gap where it was sized)', () => {
    const kernels = decodeHost(m, opts('llama.cpp'), t, 'gguf').gaps / GRAPH_KERNEL_SECONDS;
    expect(gaps('llama.cpp', 'h100-sxm') / kernels).toBeCloseTo(
      (2.5e-6 * 1.98e9) / clock('h100-sxm')!,
      12,
    );
    expect(gaps('llama.cpp', 'h100-sxm') / kernels).toBeGreaterThan(2.49e-6);
    expect(gaps('llama.cpp', 'h100-sxm') / kernels).toBeLessThan(2.51e-6);
  });

  it('seconds where the clock is not known, and for engines that count none in cycles', () => {
    const kernels = decodeHost(m, opts('llama.cpp'), t, 'gguf').gaps / GRAPH_KERNEL_SECONDS;
    expect(kernels).toBeGreaterThan(m.layers * 10);
  });

  it("vLLM's and SGLang's kernels at their H100 price in cycles: the same seconds on an H100 SXM, more on an A100", () => {
    expect(FRAMEWORKS.vllm.graphKernelCycles).toBe(SERVING_GRAPH_KERNEL_CYCLES);
    expect(FRAMEWORKS.sglang.graphKernelCycles).toBe(SERVING_GRAPH_KERNEL_CYCLES);
    const onH100 = graphKernelSecondsOf(FRAMEWORKS.vllm, clock('h100-sxm'));
    expect(onH100).toBeCloseTo(SERVING_GRAPH_KERNEL_SECONDS, 7);
    expect(gaps('vllm', 'a100-80gb-sxm') / gaps('vllm', 'rtx-4090')).toBeCloseTo(2.52 / 1.41, 1);
  });
});
