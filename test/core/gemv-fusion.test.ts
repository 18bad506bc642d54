// ggml-cuda folds a linear's bias add and a gate/up pair with its GLU into one mat-vec at one column only
// (FrameworkProfile.gemvFusion); above one batch row, or in a build before the fusion (TimeOptions.noGemvFusion), those
// ops launch apart, each at the engine's graph gap.
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { gemvApartKernels, graphKernelSecondsOf } from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const LLAMA = FRAMEWORKS['llama.cpp'];
const t1 = defaultTimeOptions(1);

describe('llama.cpp GEMV fusion at one column', () => {
  const oss = modelFacts(resolveModel('gpt-oss-20b'));
  const l2 = modelFacts(resolveModel('llama-2-7b'));

  it('gpt-oss-20b: 24 layers x (8 biased linears + the gate/up pair 2 + its second quantization 1)', () => {
    expect(gemvApartKernels(oss, LLAMA, 2, t1, true)).toBe(24 * 11);
    expect(gemvApartKernels(oss, LLAMA, 64, t1, true)).toBe(24 * 11);
    // fused at one column
    expect(gemvApartKernels(oss, LLAMA, 1, t1, true)).toBe(0);
  });

  it('a build before the fusion launches them apart at one column too', () => {
    expect(gemvApartKernels(oss, LLAMA, 1, { ...t1, noGemvFusion: true }, true)).toBe(24 * 11);
  });

  it('Llama 2 7B: no biases; 16-bit weights quantize no activation', () => {
    expect(gemvApartKernels(l2, LLAMA, 4, t1, true)).toBe(32 * 3);
    expect(gemvApartKernels(l2, LLAMA, 4, t1, false)).toBe(32 * 2);
  });

  it('an engine without the fusion: none', () => {
    expect(gemvApartKernels(oss, FRAMEWORKS.vllm, 8, t1, false)).toBe(0);
  });
});

describe('decode step', () => {
  const base = {
    ...defaultOptions('inference'),
    framework: 'llama.cpp',
    weights: 'q4_k_m',
    batch: 1,
    seq: 128,
  } as const;
  const gpu = findGpu('rtx-4090');
  const step = (time: Partial<TimeOptions> = {}, o: object = {}) =>
    estimateTime(resolveModel('llama-2-7b'), { ...base, ...o }, gpu, {
      ...t1,
      decodeOnly: true,
      ...time,
    }).stepSeconds;
  const GAP = graphKernelSecondsOf(LLAMA, gpuRates(gpu, t1).smClock);

  it('a build before the fusion pays 32 x 3 graph gaps more at one row', () => {
    expect((step({ noGemvFusion: true }) - step()) / (32 * 3 * GAP)).toBeCloseTo(1, 1);
  });

  it('an unfused graph keeps its own count', () => {
    expect(step({ unfusedGraph: true, noGemvFusion: true })).toBe(step({ unfusedGraph: true }));
  });
});
