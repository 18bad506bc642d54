// llama.cpp's decode kernels on an Apple GPU (FrameworkProfile.metalDecode): each graph node is its own Metal
// dispatch with a barrier, 5.16 µs of GPU time a dispatch (antonellof/ferrox#149, M2 Pro), and the Metal mat-vec
// kernels read the f32 activation as it is (no q8_1 quantizing kernel before a quantized linear).
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { decodeHost } from '../../src/core/time/decode-host.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('llama-2-7b'));
const opts = (weights: string, framework = 'llama.cpp'): EstimateOptions =>
  ({ ...defaultOptions('inference'), framework, weights, seq: 64 }) as EstimateOptions;
const t: TimeOptions = { ...defaultTimeOptions(1), decodeOnly: true };
const APPLE = ['apple-m2-ultra-192gb', 'apple-m3-max-128gb', 'apple-m4-max-128gb'];

describe("llama.cpp's decode kernels on an Apple GPU", () => {
  it('marks Apple GPUs, and only them, for the Metal path', () => {
    for (const id of APPLE) expect(gpuRates(findGpu(id), t).apple).toBe(true);
    for (const id of ['h100-sxm', 'rtx-4090', 'mi300x'])
      expect(gpuRates(findGpu(id), t).apple).toBeUndefined();
  });

  it('prices each kernel boundary at the Metal dispatch cost, in place of the graph gap', () => {
    const metal = FRAMEWORKS['llama.cpp'].metalDecode!;
    expect(metal.kernelSeconds).toBe(5.16e-6);
    const o = opts('q4_0');
    const graphed = decodeHost(m, o, t, 'gguf').gaps; // a card without an SM clock: 2.5 µs a kernel
    const onApple = decodeHost(m, o, t, 'gguf', undefined, 0, 0, undefined, true).gaps;
    expect(onApple / graphed).toBeCloseTo(5.16 / 2.5, 10);
  });

  it('counts no activation-quantizing kernel before a quantized linear of an unfused Metal graph', () => {
    const u = { ...t, unfusedGraph: true };
    const gguf = decodeHost(m, opts('q4_0'), u, 'gguf', undefined, 0, 0, undefined, true).gaps;
    const f16 = decodeHost(m, opts('fp16'), u, null, undefined, 0, 0, undefined, true).gaps;
    expect(gguf).toBeCloseTo(f16, 12);
    // build_llama's 24 kernels a layer, each at 5.16 µs
    expect(f16).toBeCloseTo(m.layers * 24 * 5.16e-6, 9);
    // on CUDA the same graph quantizes each quantized linear's input first (7 linears a Llama layer)
    const cuda = decodeHost(m, opts('q4_0'), u, 'gguf').gaps;
    expect(cuda).toBeCloseTo(m.layers * (24 + 7) * 2.5e-6, 9);
  });

  it('leaves an engine without a Metal path, and every other GPU, as they were', () => {
    const o = opts('fp16', 'vllm');
    expect(decodeHost(m, o, t, null, undefined, 0, 0, undefined, true).gaps).toBe(
      decodeHost(m, o, t, null).gaps,
    );
  });

  // Bytes a weight: F16 2, Q8_0 34 B and Q4_0 18 B a 32-weight block (ggml-common.h block_q8_0, block_q4_0).
  const BYTES = { fp16: 2, q8_0: 34 / 32, q4_0: 18 / 32 } as const;
  it.each(APPLE)(
    'on %s a smaller weight type never reaches a higher share of the bandwidth than F16',
    (id) => {
      for (const unfusedGraph of [false, true]) {
        const tt = { ...t, unfusedGraph };
        const r = gpuRates(findGpu(id), tt);
        const share = (w: keyof typeof BYTES) =>
          BYTES[w] * decodeStep(m, opts(w), tt, r, false).tokensPerSecond;
        expect(share('q8_0')).toBeLessThanOrEqual(share('fp16'));
        expect(share('q4_0')).toBeLessThanOrEqual(share('q8_0'));
      }
    },
  );
});
