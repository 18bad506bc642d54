// A build that launches every decode kernel from the host (TimeOptions.ungraphedDecode, a row's `cuda_graphs: "off"`):
// each kernel boundary costs a launch in place of a graph gap, ROCm's own launch on an AMD card.
import { describe, expect, it } from 'vitest';
import { decodeHost, launchedKernelSeconds } from '../../src/core/time/decode-host.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true, unfusedGraph: true };
const o = {
  ...defaultOptions('inference'),
  framework: 'llama.cpp',
  weights: 'q4_0',
  seq: 128,
} as EstimateOptions;
const m = modelFacts(resolveModel('llama-2-7b'));

describe('decode kernels launched from the host', () => {
  it('on an AMD GPU each boundary costs the ROCm launch (4.5 µs on an MI300X, Kog AI)', () => {
    const r = gpuRates(findGpu('mi300x'), t);
    const graphed = decodeHost(m, o, t, 'gguf', r.smClock, 0, r.cc, r.gfx).gaps;
    const launched = decodeHost(
      m,
      o,
      { ...t, ungraphedDecode: true },
      'gguf',
      r.smClock,
      0,
      r.cc,
      r.gfx,
    );
    expect(launchedKernelSeconds(2.5e-6, r.gfx)).toBe(4.5e-6);
    // the same kernels, each at 4.5 µs where the graph gap was 2.5 µs (AMD cards keep seconds)
    expect(launched.gaps / graphed).toBeCloseTo(4.5 / 2.5, 10);
    expect(launched.dispatch).toBe(0);
  });

  it('on NVIDIA the graph gap and the 0.4 µs a launch adds to it', () => {
    const r = gpuRates(findGpu('rtx-3090'), t);
    const graphed = decodeHost(m, o, t, 'gguf', r.smClock, 0, r.cc).gaps;
    const launched = decodeHost(
      m,
      o,
      { ...t, ungraphedDecode: true },
      'gguf',
      r.smClock,
      0,
      r.cc,
    ).gaps;
    const gap = 2.5e-6 * (1.98e9 / r.smClock!);
    const kernels = graphed / gap;
    expect(launched).toBeCloseTo(kernels * (gap + 0.4e-6), 12);
  });
});
