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
