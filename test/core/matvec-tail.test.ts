// llama.cpp's F16 mat-vec (dmmv) from before ggml-org/llama.cpp#10318: the partial last wave of one-warp rows is latency-bound
// (src/core/time/matvec-tail.ts).
import { describe, expect, it } from 'vitest';
import { dmmvResidency, dmmvTailSeconds } from '../../src/core/time/matvec-tail.js';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('llama-2-7b');
const f16 = {
  ...defaultOptions('inference'),
  framework: 'llama.cpp',
  weights: 'fp16',
  batch: 1,
} as const;
const tps = (gpu: string, time: Partial<TimeOptions> = {}, o: object = {}) =>
  estimateTime(arch, { ...f16, ...o }, findGpu(gpu), {
    ...defaultTimeOptions(1),
    decodeOnly: true,
    ...time,
  }).decodeTokensPerSecond!;

describe('dmmv tail', () => {
  it('residency: SMs x one-warp blocks per SM, and the DRAM latency of the architecture', () => {
    // A100: 108 SMs x 32 blocks (cc 8.0), 406 ns; H100 PCIe 114 x 32, 375 ns; RTX 3090 82 x 16 (cc 8.6).
    expect(dmmvResidency(findGpu('a100-80gb-pcie'))).toEqual({ slots: 3456, latency: 406e-9 });
    expect(dmmvResidency(findGpu('h100-pcie'))).toEqual({ slots: 3648, latency: 375e-9 });
    expect(dmmvResidency(findGpu('rtx-3090'))!.slots).toBe(1312);
    expect(dmmvResidency(findGpu('rtx-4090'))).toEqual({ slots: 3072, latency: 254e-9 });
    // The A800 SXM4 and H800 SXM5: the A100's and H100 SXM's SMs (132 x 32 on the H800).
    expect(dmmvResidency(findGpu('a800-80gb-sxm'))).toEqual({ slots: 3456, latency: 406e-9 });
    expect(dmmvResidency(findGpu('h800-sxm'))).toEqual({ slots: 4224, latency: 375e-9 });
    // A card the table does not cover gets no tail term.
    expect(dmmvResidency(findGpu('mi300x'))).toBeNull();
  });

  it('a partial wave costs its latency chain less its bytes at the bandwidth', () => {
    // 4096 x 4096 on 3456 slots: 640 rows left; chain 4096 / 64 / 4 = 16 trips x 406 ns = 6.496 us;
    // their bytes 640 x 8192 B at 1.6 TB/s = 3.2768 us: 3.2192 us more, twice for count 2.
    const one = dmmvTailSeconds([{ rows: 4096, cols: 4096, count: 2 }], 1.6e12, 3456, 406e-9);
    expect(one).toBeCloseTo(2 * (16 * 406e-9 - (640 * 8192) / 1.6e12), 15);
    // Whole waves, or a tail whose bytes outlast the chain, cost nothing more.
    expect(dmmvTailSeconds([{ rows: 6912, cols: 4096, count: 1 }], 1.6e12, 3456, 406e-9)).toBe(0);
    expect(dmmvTailSeconds([{ rows: 4096, cols: 4096, count: 1 }], 0.5e12, 3456, 406e-9)).toBe(0);
  });

  it('slows F16 decode of a dmmv build on HBM cards, hardly on GeForce, not at all elsewhere', () => {
    const slow = (gpu: string) => tps(gpu) / tps(gpu, { f16MatVec: 'dmmv' }) - 1;
    expect(slow('a100-80gb-pcie')).toBeGreaterThan(0.05);
    expect(slow('h100-pcie')).toBeGreaterThan(0.05);
    // RTX 4090: a 4096-row matrix leaves 1024 rows whose bytes take longer than the chain.
    expect(slow('rtx-4090')).toBeLessThan(0.005);
    // Only llama.cpp F16 at batch 1: vLLM, Q4_K_M and batch 2 are unchanged.
    for (const o of [{ framework: 'vllm' }, { weights: 'q4_k_m' }, { batch: 2 }]) {
      expect(tps('a100-80gb-pcie', { f16MatVec: 'dmmv' }, o)).toBe(tps('a100-80gb-pcie', {}, o));
    }
  });
});
