/**
 * vLLM decodes on ROCm through AMD's split-context HIP kernel only at KV block sizes 16 and 32
 * (FrameworkProfile.rocmPagedDecode); at other block sizes its Triton fallback walks each sequence's context in one
 * program, one HBM round trip a tile. The step lengthens with the context at such a block size, not at the default
 * one, and NVIDIA GPUs do not move.
 */
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { unsplitChainSeconds } from '../../src/core/time/decode-attention.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { FlagError, optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';
import { readBack } from '../serving/serve-line.js';

const MODEL = 'llama-3.1-8b';
const profile = FRAMEWORKS.vllm.rocmPagedDecode!;

function flags(gpu: string, ctx: number, block?: number): RawFlags {
  return {
    model: MODEL,
    gpu,
    method: 'inference',
    batch: 4,
    framework: 'vllm',
    seq: ctx,
    'kv-cache-dtype': 'fp8',
    ...(block === undefined ? {} : { 'kv-block-size': block }),
  };
}

function stepSeconds(gpu: string, ctx: number, block?: number): number {
  const f = flags(gpu, ctx, block);
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  return decodeStep(modelFacts(resolveModel(MODEL)), o, t, gpuRates(findGpu(gpu), t), true, ctx)
    .stepSeconds;
}

function chain(gpu: string, ctx: number, block?: number): number {
  const f = flags(gpu, ctx, block);
  const t = timeOptionsFromFlags(f, optionsFromFlags(f));
  const m = modelFacts(resolveModel(MODEL));
  return unsplitChainSeconds(m, FRAMEWORKS.vllm, gpuRates(findGpu(gpu), t), {
    ctx,
    kvBlock: block,
  });
}

describe("vLLM's decode attention on ROCm", () => {
  it("the HIP kernel's block sizes include vLLM's default one", () => {
    expect(profile.blockSizes).toContain(profile.defaultBlockSize);
  });

  it('block sizes the HIP kernel takes add nothing: the default, 16 and 32', () => {
    for (const block of [undefined, ...profile.blockSizes]) {
      expect(chain('mi355x', 32768, block)).toBe(0);
      expect(stepSeconds('mi355x', 32768, block)).toBe(stepSeconds('mi355x', 32768));
    }
  });

  it('at block size 128 a 32K context decodes slower on an MI355X and an MI300X', () => {
    expect(stepSeconds('mi355x', 32768, 128)).toBeGreaterThan(1.2 * stepSeconds('mi355x', 32768));
    // The MI300X's default step reads its KV at the HIP kernel's 0.52 of the peak (peakShares), the chain at block
    // size 128 adds the same walk: a smaller share of the longer step.
    expect(stepSeconds('mi300x', 32768, 128)).toBeGreaterThan(1.1 * stepSeconds('mi300x', 32768));
  });

  it('the walk is one round trip a tile: twice the context, twice the chain; a 64-token tile, twice 128', () => {
    expect(chain('mi355x', 32768, 128)).toBeCloseTo(2 * chain('mi355x', 16384, 128), 12);
    expect(chain('mi355x', 16384, 64)).toBeCloseTo(2 * chain('mi355x', 16384, 128), 12);
    // Tiles stop at 128 tokens however large the block.
    expect(chain('mi355x', 16384, 256)).toBe(chain('mi355x', 16384, 128));
  });

  it('a short context moves less than a long one', () => {
    const gap = (ctx: number) => stepSeconds('mi355x', ctx, 128) - stepSeconds('mi355x', ctx);
    expect(gap(1024)).toBeLessThan(gap(32768));
  });

  it('an H100 does not depend on the block size', () => {
    expect(chain('h100-sxm', 32768, 128)).toBe(0);
    expect(stepSeconds('h100-sxm', 32768, 128)).toBe(stepSeconds('h100-sxm', 32768));
  });
});

describe('--kv-block-size', () => {
  it('reads as the estimate option, serving only', () => {
    expect(optionsFromFlags(flags('mi355x', 4096, 128)).kvBlockSize).toBe(128);
    expect(() => optionsFromFlags({ model: MODEL, method: 'lora', 'kv-block-size': 128 })).toThrow(
      FlagError,
    );
  });

  it("vllm serve's --block-size reads back as it", () => {
    const r = readBack('vllm serve meta-llama/Llama-3.1-8B --max-num-seqs 8 --block-size 128');
    expect(r.flags).toMatchObject({ 'kv-block-size': 128, batch: 8 });
    expect(r.warnings.join('\n')).not.toMatch(/--block-size/);
  });
});
