/** transformers' DynamicCache: each decode step's torch.cat rewrites every layer's cache beside the attention's read. */
import { describe, expect, it } from 'vitest';
import { stepCore } from '../../src/core/time/decode-attention.js';
import { DECODE_PHASES, decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = defaultTimeOptions(1);
const h100 = gpuRates(findGpu('h100-sxm'), t);
const m = modelFacts(resolveModel('qwen2.5-7b'));
const KV = DECODE_PHASES.indexOf('decode-kv');
const hfDecode = (over: Partial<EstimateOptions> = {}): EstimateOptions => ({
  ...defaultOptions(),
  method: 'inference',
  optimizer: 'none',
  weights: 'bf16',
  framework: 'hf',
  batch: 64,
  seq: 4096,
  ...over,
});

describe('DynamicCache torch.cat per decode step', () => {
  it("is the transformers profile's, not a paged or static cache's", () => {
    expect(FRAMEWORKS.hf.kvAppendCopies).toBe(true);
    expect(FRAMEWORKS.vllm.kvAppendCopies).toBeUndefined();
    expect(FRAMEWORKS.torchtune.kvAppendCopies).toBeUndefined();
  });

  it('adds a read and a write of the cache at the memory rate to the attention, none when compiled', () => {
    const s = { batch: 64, tp: 1, ctx: 4096, weightSeconds: 0 };
    const tr = { kvGpu: 4e9, fp32Gemm: false, rate: h100.peak16 };
    const vllm = stepCore(
      m,
      { ...FRAMEWORKS.hf, kvAppendCopies: undefined },
      h100,
      tr,
      s,
    ).attention;
    const eager = stepCore(m, FRAMEWORKS.hf, h100, tr, s).attention;
    const compiled = stepCore(m, FRAMEWORKS.hf, h100, tr, { ...s, compiled: true }).attention;
    expect(eager - vllm).toBeCloseTo((2 * 4e9) / h100.mem, 9);
    expect(compiled).toBe(vllm);
  });

  it("triples the eager generate's KV traffic, and leaves a compiled (static-cache) decode alone", () => {
    const eager = decodeStep(m, hfDecode(), t, h100);
    const compiled = decodeStep(m, hfDecode({ compile: true }), t, h100);
    // The attention's read, then torch.cat's read and write of the same cache.
    expect(eager.phases[KV]! / compiled.phases[KV]!).toBeCloseTo(3, 1);
    // A longer context copies more each step.
    const short = decodeStep(m, hfDecode({ seq: 1024 }), t, h100);
    expect(eager.phases[KV]!).toBeGreaterThan(short.phases[KV]!);
  });
});
