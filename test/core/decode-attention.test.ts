/** The decode step's attention: the backend's KV read rate and the attention kernels after the GEMMs. */
import { describe, expect, it } from 'vitest';
import { kvReadRate, ridgeBlend, stepCore } from '../../src/core/time/decode-attention.js';
import { DECODE_PHASES, decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import type { FrameworkProfile } from '../../src/core/memory/framework-profile.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = defaultTimeOptions(1);
const a100 = gpuRates(findGpu('a100-80gb-sxm'), t);
const h100 = gpuRates(findGpu('h100-sxm'), t);
const mi300x = gpuRates(findGpu('mi300x'), t);
const b200 = gpuRates(findGpu('b200'), t);
const m = modelFacts(resolveModel('qwen2.5-7b'));
const fi: FrameworkProfile = { ...FRAMEWORKS.sglang, decodeAttention: () => 'flashinfer' };
const none: FrameworkProfile = { ...FRAMEWORKS.sglang, decodeAttention: undefined };

describe('decode-attention KV read rate', () => {
  it('reads at the backend family share of the peak where the profile names one for the GPU', () => {
    // FlashInfer's batch decode sustains less of an A100's peak than of an H100's (flashinfer.ai blog Figure 9).
    const onA100 = kvReadRate(m, fi, a100) / a100.mem;
    const onH100 = kvReadRate(m, fi, h100) / h100.mem;
    expect(onA100).toBeLessThan(1);
    expect(onH100).toBeGreaterThan(1);
    expect(onH100).toBeGreaterThan(onA100);
  });

  it('keeps the stream rate without a named backend, where the profile names none, on Blackwell and AMD', () => {
    expect(kvReadRate(m, none, a100)).toBe(a100.mem);
    expect(kvReadRate(m, { ...fi, decodeAttention: () => undefined }, a100)).toBe(a100.mem);
    // On AMD, an engine without ROCm decode kernels of its own in its profile (no rocmPagedDecode) streams.
    expect(kvReadRate(m, { ...fi, rocmPagedDecode: undefined }, mi300x)).toBe(mi300x.mem);
    // No Blackwell figure: the stream rate.
    expect(kvReadRate(m, fi, b200)).toBe(b200.mem);
  });

  it('follows the engines: vLLM FA2 on Ampere, SGLang FlashInfer where it picks FlashInfer, llama.cpp none', () => {
    const vllm = FRAMEWORKS.vllm.decodeAttention!;
    expect(vllm('qwen2', false, 8.0)).toBe('flash-attn-2');
    expect(vllm('qwen2', false, 9.0)).toBeUndefined(); // FA3
    expect(vllm('deepseek_v3', true, 8.0)).toBeUndefined(); // MLA backends
    const sglang = FRAMEWORKS.sglang.decodeAttention!;
    expect(sglang('llama', false, 8.0)).toBe('flashinfer');
    expect(sglang('llama', false, 9.0)).toBeUndefined(); // FA3 on Hopper for Llama
    expect(sglang('mistral', false, 9.0)).toBe('flashinfer'); // not on 0.5.6's FA3 list
    // llama.cpp inherits vLLM's profile but runs its own kernels.
    expect(FRAMEWORKS['llama.cpp'].decodeAttention).toBeUndefined();
  });
});

describe('decode step core', () => {
  it('adds the attention after GEMMs bound by their arithmetic instead of hiding it under them', () => {
    const tr = { kvGpu: 10e9, fp32Gemm: false, rate: a100.gemm16 };
    const s = { batch: 256, tp: 1, ctx: 1536, weightSeconds: 1e-3 };
    const c = stepCore(m, none, a100, tr, s);
    expect(c.compute).toBeGreaterThan(s.weightSeconds);
    expect(c.core).toBeCloseTo(c.linear + c.attention, 12);
    expect(c.attention).toBeCloseTo(tr.kvGpu / a100.mem, 9);
    // The old roofline's max(weights + KV, all FLOPs) is shorter: the KV read overlapped the GEMMs.
    expect(c.core).toBeGreaterThan(Math.max(s.weightSeconds + c.attention, c.flops / tr.rate));
  });

  it('prices the KV read by its bytes whatever batch and context split them', () => {
    // At about 540 MB a call a B200 reads within 5% whether 256 sequences of 512 tokens or 128 of 1,024 make it
    // (vllm-project/vllm#19825, benchmark_trtllm_decode_attention.py), as FlashInfer's blog found at batch 1-64.
    const tr = { kvGpu: 40e9, fp32Gemm: false, rate: h100.gemm16 };
    const wide = stepCore(m, fi, h100, tr, { batch: 256, tp: 1, ctx: 1024, weightSeconds: 10e-3 });
    const long = stepCore(m, fi, h100, tr, { batch: 128, tp: 1, ctx: 2048, weightSeconds: 10e-3 });
    expect(wide.attention).toBeCloseTo(long.attention, 12);
    expect(wide.attention).toBeCloseTo(tr.kvGpu / kvReadRate(m, fi, h100), 12);
  });

  it('keeps a memory-bound step at its weight and KV reads', () => {
    const tr = { kvGpu: 1e9, fp32Gemm: false, rate: a100.gemm16 };
    const c = stepCore(m, none, a100, tr, { batch: 1, tp: 1, ctx: 1536, weightSeconds: 8e-3 });
    expect(c.compute).toBe(0);
    // A batch-1 step's FLOPs are under 1% of its read: the ridge blend adds under a millionth.
    expect(c.core).toBeCloseTo(8e-3 + 1e9 / a100.mem, 8);
  });

  it('slows the linears near the ridge and leaves them at the longer bound away from it', () => {
    // Equal read and arithmetic: 2^(1/3) of either, between the old max and their sum.
    expect(ridgeBlend(1e-3, 1e-3)).toBeCloseTo(Math.cbrt(2) * 1e-3, 12);
    expect(ridgeBlend(1e-3, 1e-3)).toBeLessThan(2e-3);
    // Symmetric, and within 0.1% of the longer bound at a tenth.
    expect(ridgeBlend(2e-3, 5e-3)).toBeCloseTo(ridgeBlend(5e-3, 2e-3), 15);
    expect(ridgeBlend(1e-3, 1e-4) / 1e-3).toBeLessThan(1.001);
    expect(ridgeBlend(1e-3, 1e-4)).toBeGreaterThan(1e-3);
    expect(ridgeBlend(0, 0)).toBe(0);
    // torch bf16 N=6144 K=4096 on H100 (vllm-project/vllm#19627): 19.7 us read, 18.3 us of FLOPs at 706 TFLOPS,
    // 23.8 us measured at M=256; the blend lies within 3% of it where the max is 17% short.
    const blend = ridgeBlend(19.66e-6, 18.25e-6);
    expect(Math.abs(blend / 23.79e-6 - 1)).toBeLessThan(0.03);
    expect(Math.max(19.66e-6, 18.25e-6) / 23.79e-6).toBeLessThan(0.85);
  });

  it('follows published cuBLAS tables from M = 1 to 256 on an H100 and an A100', () => {
    // A linear of K x N 16-bit weights at M rows: its weight read and its FLOPs, blended (bytes of M rows left out).
    const linear = (r: typeof a100, kn: number, rows: number) =>
      ridgeBlend((2 * kn) / r.mem, (2 * rows * kn) / r.gemm16);
    // torch bf16 N=12288 K=5376 on an H100 (vllm-project/vllm#49363): 2.870, 46.54, 182.59, 352.56 TFLOP/s at M = 1,
    // 16, 64, 128, i.e. 46.0, 45.4, 46.3, 48.0 us.
    const gemma = 12288 * 5376;
    const h100Us: [number, number][] = [
      [1, 46.03],
      [16, 45.42],
      [64, 46.31],
      [128, 47.97],
    ];
    for (const [rows, us] of h100Us)
      expect(Math.abs(linear(h100, gemma, rows) / (us * 1e-6) - 1)).toBeLessThan(0.03);
    // torch.matmul fp16 over Llama-13B's four linears on an A100-class card (vllm-project/vllm#2497, IST-DASLab/marlin
    // bench.py: Marlin's time x its speedup): 0.437, 0.447, 0.426, 0.576, 0.836 ms at M = 1, 16, 64, 128, 256. The
    // blend's growth from M = 1 is within 6% of the table's but at 128, where it is up to 15% short.
    const l13b = 5120 * (15360 + 5120 + 27136 + 13568);
    const growth = (rows: number) => linear(a100, l13b, rows) / linear(a100, l13b, 1);
    for (const [rows, ratio] of [
      [16, 0.447 / 0.437],
      [64, 0.426 / 0.437],
      [256, 0.836 / 0.437],
    ] as const)
      expect(Math.abs(growth(rows) / ratio - 1)).toBeLessThan(0.06);
    expect(growth(128) / (0.576 / 0.437)).toBeGreaterThan(0.85);
    expect(growth(128)).toBeLessThan(0.576 / 0.437);
  });

  it('charges a step at the ridge more than the longer of its weight read and GEMM FLOPs', () => {
    const tr = { kvGpu: 1e9, fp32Gemm: false, rate: a100.gemm16 };
    const s = { batch: 64, tp: 1, ctx: 1536, weightSeconds: 0 };
    const gemm = stepCore(m, none, a100, tr, s).linear;
    const c = stepCore(m, none, a100, tr, { ...s, weightSeconds: gemm });
    expect(c.linear).toBeCloseTo(Math.cbrt(2) * gemm, 12);
  });

  it('grows a large vLLM batch on an A100 by more than its KV read once the GEMMs are compute-bound', () => {
    const o = { ...defaultOptions(), method: 'inference' as const, framework: 'vllm' as const };
    const arch = resolveModel('qwen2.5-7b');
    const at = (batch: number) =>
      decodeStep(modelFacts(arch), { ...o, batch }, t, a100, true, 1536).phases;
    const w = DECODE_PHASES.indexOf('decode-weights');
    const kv = DECODE_PHASES.indexOf('decode-kv');
    const small = at(16);
    const large = at(256);
    // The linears' share grows past the (equal) weight read once their FLOPs outlast it; the KV share stays apart,
    // growing with the sequences.
    expect(large[w]!).toBeGreaterThan(small[w]! * 1.2);
    expect(large[kv]! / small[kv]!).toBeCloseTo(16, 1);
  });
});
