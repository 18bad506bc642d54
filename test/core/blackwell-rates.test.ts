// Datacenter Blackwell's rates from kernel measurements (src/core/time/hardware.ts ATTN_EFF_SM100_FA2; catalogs/gpus/
// b200.json memoryBandwidthGBps; docs/time-model.md "Blackwell: the catalog's bandwidth and FlashAttention-2 on SM100").
import { describe, expect, it } from 'vitest';
import { gpuRates } from '../../src/core/time/index.js';
import { MEM_EFF } from '../../src/core/time/hardware.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const rates = (id: string) => gpuRates(findGpu(id), defaultTimeOptions(1));

describe('Blackwell (compute capability 10.x) rates', () => {
  it("runs FlashAttention-2 at its measured B200 rate, 345.8 TFLOPS fwd + bwd, not Hopper's 0.35 of the peak", () => {
    // flash_attn 2.7.4.post1 on a B200, seqlen 16,384: Dao-AILab/flash-attention#1589.
    expect(rates('b200').attn / 1e12).toBeCloseTo(345.8, 6);
    // The same share of GB200's own spec (10.0) and B300's (10.3).
    expect(rates('gb200').attn / rates('gb200').peak16).toBeCloseTo(345.8 / 2250, 6);
    expect(rates('b300').attn / rates('b300').peak16).toBeCloseTo(345.8 / 2250, 6);
  });

  it("keeps Hopper's GEMM share on the B200 (torch bf16 matmuls at 0.65-0.67 of 2,250 over shapeFactor)", () => {
    expect(rates('b200').gemm16 / 2250e12).toBeCloseTo(0.65, 6);
  });

  it("gives B300 (Blackwell Ultra, 10.3) the B200's measured GEMM share, not Ampere's 0.8", () => {
    expect(rates('b300').gemm16 / 2250e12).toBeCloseTo(0.65, 6);
    expect(rates('b300').hopper).toBe(true);
  });

  it("leaves Hopper's FlashAttention share and the GeForce Blackwell die alone", () => {
    expect(rates('h100-sxm').attn / 989.4e12).toBeCloseTo(0.35, 6);
    const rtx = rates('rtx-5090');
    expect(rtx.attn).toBeCloseTo(rtx.gemm16, 0);
  });

  it('streams the B200 at MEM_EFF of its 7,680-bit bus at 3,996 MHz (7,672 GB/s), not the 8 TB/s launch figure', () => {
    expect(findGpu('b200').memoryBandwidthGBps).toBe(7672);
    expect(rates('b200').mem).toBeCloseTo(7672e9 * MEM_EFF, -6);
  });
});

// Independent kernel benchmarks the modelled rates must not exceed (docs/time-model.md "Datacenter Blackwell's rates
// against kernel benchmarks"): mamf-finder's best bf16 and FP8 matmuls (stas00/ml-engineering
// compute/accelerator/README.md @744d01e), torch.mm at 4096^3-8192^3 (pytorch/ao#2427), CUB's stream (NVIDIA/cccl#7391).
const MAMF: Record<string, { bf16: number; fp8: number }> = {
  b200: { bf16: 1745.0, fp8: 3432.5 },
  b300: { bf16: 1769.0, fp8: 3353.3 },
  gb200: { bf16: 1822.0, fp8: 3615.6 },
};

describe('Datacenter Blackwell rates against kernel benchmarks', () => {
  it.each(Object.entries(MAMF))(
    '%s: GEMMs at or below mamf-finder, FP8 at twice the 16-bit rate',
    (id, m) => {
      const r = rates(id);
      expect(r.gemm16 / 1e12).toBeLessThanOrEqual(m.bf16);
      expect(r.gemm8).toBeUndefined();
      expect((2 * r.gemm16) / 1e12).toBeLessThanOrEqual(m.fp8);
    },
  );

  it('B200: bf16 GEMMs inside torch.mm at 4096^3-8192^3 over shapeFactor, HBM below CUB streaming', () => {
    const r = rates('b200');
    // 1.41 PFLOPS / 0.941 (4096^3) and 1.42 / 0.970 (8192^3): 1.498 and 1.464 PFLOPS at shape factor 1.
    expect(r.gemm16 / 1e15).toBeGreaterThanOrEqual(1.42 / 0.97 - 0.01);
    expect(r.gemm16 / 1e15).toBeLessThanOrEqual(1.41 / 0.941);
    expect(r.mem / 1e12).toBeLessThanOrEqual(6.721);
    expect(r.attn / 1e12).toBeLessThanOrEqual(345.8 + 1e-9);
  });
});
