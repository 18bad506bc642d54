/**
 * vLLM's own ROCm decode-attention kernels read the KV below the card's stream rate (FrameworkProfile.rocmPagedDecode.peakShares):
 * the split-context HIP kernel (ll4mi) at 0.52 of the peak where its block, head and GQA sizes take the layers, the
 * Triton unified attention at 0.54 elsewhere, on gfx942 and gfx950 only; AITER's backends, MLA latents, SGLang and
 * NVIDIA GPUs keep their rates.
 */
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { kvReadRate } from '../../src/core/time/decode-attention.js';
import { MEM_EFF_AMD } from '../../src/core/time/hardware.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const llama = modelFacts(resolveModel('llama-3.1-8b')); // 32 query and 8 KV heads of 128
const vllm = FRAMEWORKS.vllm;
const read = FRAMEWORKS.vllm.rocmPagedDecode!.peakShares!;
const rates = (gpu: string) => {
  const f: RawFlags = { model: 'llama-3.1-8b', gpu, method: 'inference', framework: 'vllm' };
  return gpuRates(findGpu(gpu), timeOptionsFromFlags(f, optionsFromFlags(f)));
};

function stepSeconds(gpu: string, ctx: number, aiter?: boolean): number {
  const f: RawFlags = {
    model: 'llama-3.1-8b',
    gpu,
    method: 'inference',
    batch: 64,
    framework: 'vllm',
    seq: ctx,
  };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), ...(aiter ? { rocmAiter: true } : {}) };
  return decodeStep(llama, o, t, gpuRates(findGpu(gpu), t), true, ctx).stepSeconds;
}

describe("vLLM's ROCm decode attention's KV read", () => {
  it('the split HIP kernel at its share of the peak on an MI300X and an MI355X (16-token blocks)', () => {
    for (const gpu of ['mi300x', 'mi355x']) {
      const r = rates(gpu);
      expect(kvReadRate(llama, vllm, r) / r.mem).toBeCloseTo(read.split / MEM_EFF_AMD, 12);
      expect(kvReadRate(llama, vllm, r, { kvBlock: 32 })).toBe(kvReadRate(llama, vllm, r));
    }
  });

  it("the Triton kernel's share outside the HIP kernel's block sizes", () => {
    const r = rates('mi300x');
    expect(kvReadRate(llama, vllm, r, { kvBlock: 128 }) / r.mem).toBeCloseTo(
      read.triton / MEM_EFF_AMD,
      12,
    );
  });

  it('both below the stream rate', () => {
    expect(read.split).toBeLessThan(MEM_EFF_AMD);
    expect(read.triton).toBeLessThan(MEM_EFF_AMD);
  });

  it("AITER's backends, an MLA latent and an MI210 keep the stream rate", () => {
    const r = rates('mi300x');
    expect(kvReadRate(llama, vllm, r, { aiter: true })).toBe(r.mem);
    expect(kvReadRate(modelFacts(resolveModel('deepseek-v3')), vllm, r)).toBe(r.mem);
    const mi210 = rates('mi210');
    expect(kvReadRate(llama, vllm, mi210)).toBe(mi210.mem);
  });

  it("SGLang's untimed ROCm decode kernels read at the Triton unified attention's share, whatever the block", () => {
    const r = rates('mi300x');
    const triton = kvReadRate(llama, vllm, r, { kvBlock: 128 });
    expect(triton).toBeLessThan(r.mem);
    expect(kvReadRate(llama, FRAMEWORKS.sglang, r)).toBeCloseTo(triton, 6);
    expect(kvReadRate(llama, FRAMEWORKS.sglang, r, { kvBlock: 16 })).toBeCloseTo(triton, 6);
  });

  it('an H100 keeps its decode family whatever the ROCm options', () => {
    const r = rates('h100-sxm');
    expect(kvReadRate(llama, vllm, r, { kvBlock: 128, aiter: true })).toBe(
      kvReadRate(llama, vllm, r),
    );
  });

  it('the MI300X step grows with the context faster than under AITER, and more at 8K than at 1K', () => {
    const gap = (ctx: number) => stepSeconds('mi300x', ctx) - stepSeconds('mi300x', ctx, true);
    expect(gap(1024)).toBeGreaterThan(0);
    expect(gap(8192)).toBeGreaterThan(4 * gap(1024));
  });
});
