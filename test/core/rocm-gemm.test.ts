// vLLM's decode linears on ROCm: its skinny kernels take a bias-free 16-bit linear at 1-4 batch rows and a per-tensor
// FP8 one at one row; every other linear goes to hipBLASLt, whose call costs a fixed time beyond its bytes
// (FrameworkProfile.rocmLibraryGemm, engines/vllm/rocm-gemm.ts; time/rocm-gemm.ts).
import { describe, expect, it } from 'vitest';
import { rocmLibraryGemmSeconds } from '../../src/core/time/rocm-gemm.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { VLLM_ROCM_LIBRARY_GEMM } from '../../src/core/engines/vllm/rocm-gemm.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { Arch } from '../../src/core/model/arch.js';

const opts = (o: Partial<EstimateOptions> = {}): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'vllm',
  weights: 'bf16',
  batch: 32,
  seq: 2048,
  ...o,
});
const mi300x = gpuRates(findGpu('mi300x'), defaultTimeOptions(1));
const h100 = gpuRates(findGpu('h100-sxm'), defaultTimeOptions(1));
const qwen = resolveModel('qwen3-8b');
const gptOss = resolveModel('gpt-oss-20b');
const llama70 = resolveModel('llama-3.1-70b');
const extra = (arch: Arch, o: Partial<EstimateOptions> = {}, r = mi300x, eff8 = 0.69) =>
  rocmLibraryGemmSeconds(arch, opts(o), FRAMEWORKS[opts(o).framework], r, opts(o).batch, eff8);

// ROCm/rocm-libraries#12329: hipBLASLt's fp16 GEMM at decode M on an MI300X, (N, K, µs).
const HIPBLASLT_MI300X: readonly [number, number, number][] = [
  [13312, 17792, 118.96],
  [76032, 13312, 497.12],
  [38016, 13312, 255.54],
  [35584, 13312, 244.15],
  [19968, 13312, 131.58],
  [19008, 13312, 121.3],
  [17792, 13312, 123.39],
  [9984, 13312, 72.5],
  [8896, 13312, 71.12],
  [4992, 13312, 43.31],
  [8192, 12288, 61.53],
  [4096, 11008, 32.77],
  [13312, 8896, 71.85],
  [76032, 8192, 315.77],
];

describe("vLLM's decode linears on ROCm", () => {
  it("the profile's fixed cost and read share are the least-squares line of the MI300X table", () => {
    const pts = HIPBLASLT_MI300X.map(([n, k, us]) => [n * k * 2, us * 1e-6] as const);
    const mx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
    const my = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    const slope =
      pts.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0) /
      pts.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
    expect(VLLM_ROCM_LIBRARY_GEMM.floorSeconds).toBeCloseTo(my - slope * mx, 6);
    // The share of the modelled stream rate (0.81 x 5.3 TB/s) the fitted rate reaches.
    expect(VLLM_ROCM_LIBRARY_GEMM.readShare).toBeCloseTo(1 / slope / mi300x.mem, 2);
  });

  it('adds nothing on an NVIDIA GPU or for an engine without the profile', () => {
    expect(extra(qwen, {}, h100)).toBe(0);
    expect(extra(qwen, { framework: 'llama.cpp' })).toBe(0);
    expect(extra(qwen)).toBeGreaterThan(0);
  });

  it("adds nothing where the skinny kernels take a bias-free 16-bit model's linears (1-4 rows)", () => {
    for (const batch of [1, 2, 4]) expect(extra(qwen, { batch })).toBe(0);
    // Qwen3-8B at 8 rows: 36 layers of four GEMMs and the LM head, each about the fixed cost less a kernel gap.
    const eight = extra(qwen, { batch: 8 });
    const gemms = 36 * 4 + 1;
    expect(eight / gemms).toBeGreaterThan(VLLM_ROCM_LIBRARY_GEMM.floorSeconds - 3.15e-6);
    expect(eight / gemms).toBeLessThan(VLLM_ROCM_LIBRARY_GEMM.floorSeconds + 15e-6);
  });

  it("sends a biased linear to the library at every batch: gpt-oss's attention and router", () => {
    const one = extra(gptOss, { weights: 'mxfp4', batch: 1 });
    // 24 layers' qkv, o and router; the LM head (no bias) stays on the skinny kernel at one row.
    expect(one).toBeGreaterThan(24 * 3 * 5e-6);
    expect(one).toBeLessThan(extra(gptOss, { weights: 'mxfp4', batch: 8 }));
  });

  it('per-tensor FP8 leaves the skinny kernel above one row, and the extra fades when the GEMMs are compute-bound', () => {
    const fp8 = (batch: number) => extra(llama70, { weights: 'fp8', gpus: 8, tp: 8, batch });
    expect(fp8(1)).toBe(0);
    expect(fp8(2)).toBeGreaterThan(80 * 4 * 2e-6);
    expect(fp8(4096)).toBeLessThan(fp8(2));
  });

  it('takes the FP8 read share the model already gives ROCm: large GEMMs at that share add nothing', () => {
    // Llama-3.1-70B's gate/up unsplit (1.9 GB of FP8 a layer, TP 1): its bytes at 0.69 of the stream rate outlast the
    // library's fixed cost and read.
    const tp1 = extra(llama70, { weights: 'fp8', batch: 2 });
    const tp8 = extra(llama70, { weights: 'fp8', gpus: 8, tp: 8, batch: 2 });
    expect(tp1).toBeLessThan(tp8);
  });
});

// SGLang 0.5.23 on ROCm without SGLANG_USE_AITER: F.linear and torch._scaled_mm (hipBLASLt) at every batch row, no
// skinny kernel (engines/sglang/rocm-gemm.ts, the wheel's unquant.py and fp8_utils.py).
describe("SGLang's decode linears on ROCm", () => {
  const sglang = (arch: Arch, o: Partial<EstimateOptions> = {}) =>
    extra(arch, { framework: 'sglang', ...o });

  it('pays the hipBLASLt call at every batch row, where vLLM runs its skinny kernels', () => {
    for (const batch of [1, 2, 4]) {
      expect(extra(qwen, { batch })).toBe(0);
      expect(sglang(qwen, { batch })).toBeGreaterThan(36 * 4 * 2e-6);
    }
    const fp8 = (framework: 'vllm' | 'sglang') =>
      extra(llama70, { framework, weights: 'fp8', gpus: 8, tp: 8, batch: 1 });
    expect(fp8('vllm')).toBe(0);
    expect(fp8('sglang')).toBeGreaterThan(80 * 4 * 2e-6);
  });

  it("takes vLLM's figure above the skinny rows: the same library call", () => {
    const at = (framework: 'vllm' | 'sglang') =>
      extra(llama70, { framework, weights: 'fp8', gpus: 4, tp: 4, batch: 128 });
    expect(at('sglang')).toBeGreaterThan(0);
    expect(at('sglang')).toBeCloseTo(at('vllm'), 9);
  });
});
