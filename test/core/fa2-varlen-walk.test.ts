/**
 * vLLM V1's FLASH_ATTN backend on compute capability 8.x decodes through FlashAttention 2's varlen entry, which splits a
 * decode call's keys only when it swaps the query's heads into rows: never for a sliding-window layer nor for a layer
 * with as many K/V heads as query heads (engines/vllm/fa2-varlen.ts). Those layers run one program a sequence and query
 * head over every key they attend, priced as its 64-row tile's tensor-core products on one SM at the share of its peak a
 * walking FlashAttention 2 program sustains (Flash-Decoding's A100 benchmark of v2.0.9: 0.65;
 * time/decode-attention.ts unsplitWalkSeconds).
 */
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { unsplitWalkSeconds } from '../../src/core/time/decode-attention.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const gemma3 = modelFacts(resolveModel('gemma-3-4b-it'));
const llama2 = modelFacts(resolveModel('llama-2-7b'));
const llama31 = modelFacts(resolveModel('llama-3.1-8b'));
const t = defaultTimeOptions(1);
const a100 = gpuRates(findGpu('a100-80gb-sxm'), t, true);
const v1 = { batch: 1, tp: 1, ctx: 1088, varlen: true };

describe("FlashAttention 2's unsplit decode walk under vLLM V1", () => {
  it("gemma-3-4b-it on an A100: its 29 sliding layers walk their 1024-token window at 0.65 of the SM's 16-bit peak", () => {
    // The catalog's A100 dense bf16 peak over its SMs, at the share one FA2 v2.0.9 program sustained in
    // https://pytorch.org/blog/flash-decoding/ (4 x 128 x 128 FLOPs a key x 65536 keys in 2300.6 µs).
    const perSm = (312e12 / 108) * 0.65;
    const walk = (29 * 1024 * 4 * 64 * 256) / perSm;
    expect(unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, v1)).toBeCloseTo(walk, 9);
    // Below the window the walk is the context; eight programs a sequence fill 16 sequences' 108 SMs only past one wave.
    expect(unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, { ...v1, ctx: 192 })).toBeCloseTo(
      (29 * 192 * 4 * 64 * 256) / perSm,
      9,
    );
    const b16 = unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, { ...v1, batch: 16 });
    expect(b16 / walk).toBeCloseTo((16 * 8) / 108, 9);
  });

  it("the share is the Flash-Decoding benchmark's: FA2 v2.0.9's 16 programs over 65536 and 131072 keys", () => {
    const perSmPeak = 312e12 / 108;
    const share = (keys: number, us: number) => (4 * 128 * 128 * keys) / (us * 1e-6) / perSmPeak;
    expect(share(65536, 2300.6)).toBeCloseTo(0.65, 2);
    expect(share(131072, 4592.2)).toBeCloseTo(0.65, 2);
    expect(FRAMEWORKS.vllm.unsplitDecodeWalk?.smEfficiency).toBe(0.65);
    // Without the share (the SM's peak) the walk would be 0.65 of what it is.
    const at = unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, v1);
    expect(at).toBeCloseTo((29 * 1024 * 4 * 64 * 256) / (perSmPeak * 0.65), 9);
  });

  it('a multi-head model walks its whole context; a GQA model without a window splits', () => {
    expect(unsplitWalkSeconds(llama2, FRAMEWORKS.vllm, a100, v1)).toBeGreaterThan(0);
    expect(unsplitWalkSeconds(llama31, FRAMEWORKS.vllm, a100, v1)).toBe(0);
  });

  it('only where the engine runs FA2 varlen: not a V0 build, not Hopper (FA3), not SGLang (FlashInfer)', () => {
    expect(unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, { ...v1, varlen: false })).toBe(0);
    const h100 = gpuRates(findGpu('h100-sxm'), t, true);
    expect(unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, h100, v1)).toBe(0);
    expect(unsplitWalkSeconds(gemma3, FRAMEWORKS.sglang, a100, v1)).toBe(0);
  });

  it("the A100 step at one request: the walk takes the attention's place, a V0 build's keeps the KV read (its host loop aside)", () => {
    const o = { ...defaultOptions('inference'), framework: 'vllm' as const, batch: 1, seq: 1088 };
    const step = (v0: boolean) =>
      decodeStep(gemma3, o, { ...t, v0Scheduler: v0 }, a100, true, 1088);
    const kv = 2; // DECODE_PHASES index of 'decode-kv'
    const walk = unsplitWalkSeconds(gemma3, FRAMEWORKS.vllm, a100, v1);
    expect(step(false).phases[kv]).toBeCloseTo(walk, 9);
    expect(step(true).phases[kv]!).toBeLessThan(walk / 5);
  });
});
