// Achievable tensor rates per card: the power wall of professional cards on GeForce dies, and of flagships
// under a power limit (src/core/time/index.ts TFLOPS_PER_WATT, sustainedTflops).
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates, powerKeep } from '../../src/core/time/index.js';
import { pcieGBps } from '../../src/core/time/hardware.js';
import { timeVerdict } from '../../src/core/time/verdict.js';
import { powerHeldLine } from '../../src/ui/estimate-text.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const rate = (id: string, powerLimit = 1) =>
  gpuRates(findGpu(id), { ...defaultTimeOptions(1), powerLimit }).gemm16;

describe('tensor rate per card', () => {
  it('GeForce flagships train at their fp32-accumulate spec (no power cap binds)', () => {
    // Same efficiency class, spec 71 vs 165.2 TFLOPS: the rates keep the spec ratio.
    expect(rate('rtx-4090') / rate('rtx-3090')).toBeCloseTo(165.2 / 71, 6);
  });

  // GeForce matmuls with fp32 accumulation reach 0.98 of that spec at shape factor 1 (the tensor pipe binds), the others
  // 0.8 of theirs.
  const geforce = 0.98 / 0.8;

  it('GeForce dies reach a larger share of their fp32-accumulate spec than full-rate cards of theirs', () => {
    expect(rate('rtx-4090') / 165.2e12).toBeCloseTo(0.98, 6);
    expect(rate('rtx-3090') / 71e12).toBeCloseTo(0.98, 6);
    expect(rate('a100-80gb-sxm') / 312e12).toBeCloseTo(0.8, 6);
    // The Titan RTX (Turing) accumulates in fp32 at full rate: no GeForce share.
    expect(rate('titan-rtx') / 130e12).toBeCloseTo(0.8, 6);
  });

  it("a V100 reaches Volta's measured shares: 0.76 of its fp16 tensor spec, 0.91 of its fp32 spec", () => {
    const r = gpuRates(findGpu('v100-16gb'), defaultTimeOptions(1));
    expect(r.gemm16 / 125e12).toBeCloseTo(0.76, 6);
    expect(r.gemm32 / 15.7e12).toBeCloseTo(0.91, 6);
  });

  it('professional cards on the same die get no more per watt than the GeForce flagship', () => {
    // RTX A5000: 111 TFLOPS spec at 230 W; the 3090 trains at 71 at 350 W: held to 71/350 x 230 / 0.85.
    expect(rate('rtx-a5000') / rate('rtx-3090')).toBeCloseTo(
      ((71 / 350) * 230) / 0.85 / 71 / geforce,
      6,
    );
    // RTX 6000 Ada (364 TFLOPS spec, 300 W) is slower than a 4090 (165 TFLOPS, 450 W), as fsdp_qlora measured.
    expect(rate('rtx-6000-ada')).toBeLessThan(rate('rtx-4090'));
    expect(rate('rtx-6000-ada') / rate('rtx-4090')).toBeCloseTo(300 / 450 / 0.85 / geforce, 6);
  });

  it('a card with a measured 16-bit matmul rate runs its GEMMs at that rate, not at the power wall', () => {
    // L4 (121 TFLOPS spec, 72 W): torch bf16 matmuls at 58.35 TFLOPS at shape factor 1 (catalog
    // gemm16MeasuredTflops, zzc0721/torch-performance-test-data#120), where the 4090's watts would allow 31.
    const l4 = findGpu('l4');
    expect(l4.gemm16MeasuredTflops).toBeDefined();
    expect(rate('l4') / 1e12).toBeCloseTo(l4.gemm16MeasuredTflops!, 6);
    expect(rate('l4')).toBeGreaterThan(((165.2 / 450) * 72 * 0.8 * 1e12) / 0.85);
    // Under a power limit it still loses in proportion (the wall binds at any fraction of 72 W).
    expect(rate('l4', 0.5) / rate('l4')).toBeCloseTo(0.5, 6);
  });

  it('the L40S runs its GEMMs at its measured bf16 matmul rate, not at the 4090 power wall', () => {
    // L40S (362 TFLOPS spec, full-rate fp32 accumulation, 350 W): torch bf16 matmuls at best 269.15 TFLOPS
    // (catalog gemm16MeasuredTflops, https://github.com/zzc0721/torch-performance-test-data/issues/43), where the 4090's fp32-accumulate
    // rate per watt would hold it at 151 TFLOPS sustained, 121 at the GEMM efficiency.
    const l40s = findGpu('l40s');
    expect(l40s.gemm16MeasuredTflops).toBeDefined();
    expect(rate('l40s') / 1e12).toBeCloseTo(l40s.gemm16MeasuredTflops!, 6);
    expect(rate('l40s')).toBeGreaterThan((2 * ((165.2 / 450) * 350 * 0.8 * 1e12)) / 0.85);
  });

  it('the A10 runs its GEMMs at its measured bf16 matmul rate, above the GA10x power wall', () => {
    // A10 (GA102, 125 TFLOPS spec with full-rate fp32 accumulation, 150 W): torch bf16 matmuls at best 56 TFLOPS
    // (catalog gemm16MeasuredTflops, chsasank/device-benchmarks README), where the 3090's rate per watt would hold it at
    // 35.8 TFLOPS sustained, 28.6 at the GEMM efficiency.
    const a10 = findGpu('a10');
    expect(a10.gemm16MeasuredTflops).toBe(56);
    expect(rate('a10') / 1e12).toBeCloseTo(56, 6);
    expect(rate('a10')).toBeGreaterThan((((71 / 350) * 150 * 0.8) / 0.85) * 1e12 * 1.9);
  });

  it('the RTX A6000 and A4000 run their GEMMs at their measured bf16 matmul rates, above the GA10x power wall', () => {
    // Professional GA102/GA104 cards accumulate bf16 in fp32 at full rate. RTX A6000 (154.8 TFLOPS spec, 300 W): torch
    // bf16 matmuls at best 123.34 TFLOPS (zzc0721/torch-performance-test-data#46); RTX A4000 (76.7, 140 W): 57.85 at
    // shape factor 1 (zzc0721/torch-performance-test-data#97). The 3090's rate per watt would hold them at 71.6 and
    // 33.4 TFLOPS sustained, 57.3 and 26.7 at the GEMM efficiency.
    for (const [id, measured, watts] of [
      ['rtx-a6000', 123.34, 300],
      ['rtx-a4000', 57.85, 140],
    ] as const) {
      expect(findGpu(id).gemm16MeasuredTflops).toBe(measured);
      expect(rate(id) / 1e12).toBeCloseTo(measured, 6);
      expect(rate(id)).toBeGreaterThan((((71 / 350) * watts * 0.8) / 0.85) * 1e12 * 2);
    }
    // The A5000 has no measurement of its own and stays at the wall.
    expect(findGpu('rtx-a5000').gemm16MeasuredTflops).toBeUndefined();
  });

  it('the A100 40GB PCIe and H100 PCIe carry their measured bf16 matmul rates, above their power walls', () => {
    // zzc0721/torch-performance-test-data#108 and zzc0721/torch-performance-test-data#95: median of the 4096-10240 runs over shapeFactor. The H100 PCIe's
    // (508.24 TFLOPS) over Hopper's GEMM efficiency passes its 756 spec, so it is held at the spec.
    expect(rate('a100-40gb-pcie') / 1e12).toBeCloseTo(221.99, 6);
    expect(rate('a100-40gb-pcie')).toBeGreaterThan(((312 / 400) * 250 * 0.8 * 1e12) / 0.85);
    expect(rate('h100-pcie') / 1e12).toBeCloseTo(756 * 0.65, 6);
  });

  it('the T4 runs its GEMMs at its power-capped continuous matmul rate, below the Titan RTX power wall', () => {
    // T4 (65 TFLOPS spec, 70 W): cuBLAS fp16 4096^3 matmuls back to back at about 24 TFLOPS, the power cap's clock
    // (https://forums.developer.nvidia.com/t/about-gpu-peak-performance/264462), 25.5 at shape factor 1 (catalog
    // gemm16MeasuredTflops), where the Titan RTX's TFLOPS per watt would allow 38.2 x 0.8 = 30.6.
    const t4 = findGpu('t4');
    expect(t4.gemm16MeasuredTflops).toBeDefined();
    expect(rate('t4') / 1e12).toBeCloseTo(t4.gemm16MeasuredTflops!, 6);
    expect(rate('t4')).toBeLessThan(((130 / 280) * 70 * 0.8 * 1e12) / 0.85);
  });

  it('datacenter flagships keep their spec, and lose in proportion below 85% of board power', () => {
    expect(rate('h100-sxm', 500 / 700) / rate('h100-sxm')).toBeCloseTo(500 / 700 / 0.85, 6);
    // Above the knee only the published curve applies.
    expect(rate('a100-80gb-sxm', 0.95) / rate('a100-80gb-sxm')).toBeCloseTo(
      powerKeep(0.95, 'compute'),
      6,
    );
    expect(powerKeep(0.95, 'compute')).toBeLessThan(1);
  });
});

describe('memory-bound rate under a power limit', () => {
  const mem = (id: string, powerLimit: number, serving = false) =>
    gpuRates(findGpu(id), { ...defaultTimeOptions(1), powerLimit }, serving).mem /
    gpuRates(findGpu(id), defaultTimeOptions(1), serving).mem;

  it('a GDDR card follows the RTX 3090 llama.cpp decode sweep, whether serving or training', () => {
    // llmgarage's six-3090 sweep at 4K context: 72.6 tok/s at 350 W, 70.7 at 250 W, 68.3 at 200 W.
    expect(mem('rtx-3090', 250 / 350)).toBeCloseTo(70.7 / 72.6, 6);
    expect(mem('rtx-4090', 200 / 350, true)).toBeCloseTo(68.3 / 72.6, 6);
    expect(mem('rtx-4090', 0.7, true)).toBe(mem('rtx-4090', 0.7));
    // The weight read keeps more of its rate than the GEMMs at the search's power levels.
    for (const f of [0.6, 0.7, 0.85])
      expect(powerKeep(f, 'memory')).toBeGreaterThan(powerKeep(f, 'compute'));
  });

  it('an HBM card serving keeps its bandwidth down to the 300 of 700 W an H200 decode draws', () => {
    expect(mem('h100-sxm', 0.5, true)).toBe(1);
    expect(mem('h200-sxm', 300 / 700, true)).toBe(1);
    expect(mem('h100-sxm', 0.3, true)).toBeLessThan(1);
    // A training step's GEMMs hold the card at its cap: its memory-bound kernels follow the cap itself.
    expect(mem('h100-sxm', 0.5)).toBeCloseTo(0.85, 6);
  });
});

describe('bitsandbytes 4-bit decode', () => {
  it('double quantization costs its extra absmax ops on every linear call, per token', () => {
    const arch = resolveModel('llama-2-7b');
    const perToken = (doubleQuant: boolean) => {
      const o = { ...defaultOptions('inference'), weights: 'nf4' as const, doubleQuant, seq: 64 };
      const t = estimateTime(arch, o, findGpu('a100-40gb'), defaultTimeOptions(1));
      return 1 / t.decodeTokensPerSecond!;
    };
    // Eager decoding of a 4-bit 7B is dispatch-bound: 32 layers x 7 linears, 3 more ops of ~21 µs each
    // (dequantize_blockwise + absmax += offset).
    expect(perToken(true) - perToken(false)).toBeCloseTo(32 * 7 * 3 * 21e-6, 4);
  });

  it('eager decoding takes the longer of GPU work and CPU dispatch (HF generate, Llama-7B fp16, RTX 3090)', () => {
    const arch = resolveModel('llama-2-7b');
    const o = {
      ...defaultOptions('inference'),
      weights: 'fp16' as const,
      compute: 'fp16' as const,
    };
    const eager = estimateTime(arch, o, findGpu('rtx-3090'), defaultTimeOptions(1));
    // 32.9 ms/token measured (bitsandbytes-foundation/bitsandbytes#347); the weight read alone is ~17 ms.
    expect(1 / eager.decodeTokensPerSecond!).toBeCloseTo(0.0329, 2);
    // Compiled (CUDA graphs): the weight read plus graph gaps, far below the eager dispatch.
    const compiled = estimateTime(
      arch,
      { ...o, compile: true },
      findGpu('rtx-3090'),
      defaultTimeOptions(1),
    );
    expect(1 / compiled.decodeTokensPerSecond!).toBeLessThan(0.022);
  });
});

describe('power-held cards are named', () => {
  it('estimate reports spec and sustained TFLOPS; text and explain say what holds the card back', () => {
    const arch = resolveModel('llama-2-7b');
    const o = defaultOptions('lora');
    const a5000 = estimateTime(arch, o, findGpu('rtx-a5000'), defaultTimeOptions(1));
    expect(a5000.tensorTflops.spec).toBe(111.1);
    expect(a5000.tensorTflops.sustained).toBeCloseTo(((71 / 350) * 230) / 0.85, 1);
    expect(powerHeldLine(a5000)).toMatch(/^power holds it to 55 of its 111 spec/);
    expect(timeVerdict(a5000).lift).toMatch(/more tensor FLOP\/s per watt/);
    const h4090 = estimateTime(arch, o, findGpu('rtx-4090'), defaultTimeOptions(1));
    expect(powerHeldLine(h4090)).toBeNull();
  });
});

describe('a rig link apart from the card', () => {
  it('PCIe generation and lanes set the per-direction rate', () => {
    expect(pcieGBps('PCIe 4.0 x16')).toBe(32);
    expect(pcieGBps('PCIe 4.0 x8')).toBe(16);
    expect(pcieGBps('PCIe 3.0 x8')).toBe(8);
    expect(pcieGBps('PCIe 3.0 x4')).toBe(4);
  });

  it("a rig's x8 PCIe 3.0 link quarters a GeForce pair's collectives and host copies against the card's x16 4.0", () => {
    const g = findGpu('rtx-3090');
    const t = { ...defaultTimeOptions(2), interconnect: 'pcie' as const };
    const own = gpuRates(g, t);
    const rig = gpuRates(g, { ...t, pcieLink: 'PCIe 3.0 x8' });
    expect(rig.intraPair / own.intraPair).toBeCloseTo(0.25, 9);
    expect(rig.host / own.host).toBeCloseTo(0.25, 9);
    // Compute is the card's own.
    expect(rig.gemm16).toBe(own.gemm16);
  });

  // NVIDIA/nccl#814: p2pBandwidthLatencyTest on six RTX 4090 (PCIe 4.0 x16), P2P=Disabled, the copy staged through
  // host memory: 20.10-22.42 GB/s one way; 21.12-30.53 GB/s with both directions at once, 10.56-15.27 a direction.
  const RTX4090_STAGED_ONE_WAY_MIN_GBPS = 20.1;
  const RTX4090_STAGED_BOTH_WAYS_PER_DIRECTION_GBPS = [21.12 / 2, 30.53 / 2] as const;

  it("a GeForce pair's staged ring runs inside the RTX 4090's measured staged copy rates with both directions loaded", () => {
    const own = gpuRates(findGpu('rtx-4090'), {
      ...defaultTimeOptions(2),
      interconnect: 'pcie' as const,
    });
    expect(own.peerStaged.pair).toBe(true);
    const [low, high] = RTX4090_STAGED_BOTH_WAYS_PER_DIRECTION_GBPS;
    expect(own.intraPair / 1e9).toBeGreaterThanOrEqual(low);
    expect(own.intraPair / 1e9).toBeLessThanOrEqual(high);
    // A ring sends and receives at once, so it does not reach the one-way staged copy.
    expect(own.intraPair / 1e9).toBeLessThan(RTX4090_STAGED_ONE_WAY_MIN_GBPS);
  });
});
