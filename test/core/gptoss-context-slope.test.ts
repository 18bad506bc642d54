/**
 * gpt-oss-20b's one-request decode step as the context grows, against the vLLM blog's FP8 KV-cache post
 * (vllm-project/vllm-project.github.io @5ffe2dd5 `_posts/2026-04-22-fp8-kvcache.md`, vLLM v0.19.1, BF16 KV cache): its
 * linear fits of the ITL over 256-125k tokens in give the slope alone, which the step's context-bound part (the 12 full
 * layers' KV read; the 12 sliding layers read a 128-token window) sets, apart from the fixed part the same rows leave
 * open (docs/time-model.md "gpt-oss on vLLM of 2026: single streams on H100 and B200, 300 in flight on H200").
 * FlashAttention 3 with the sinks runs on Hopper, TensorRT-LLM-gen's decode on SM100.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

/** The post's fitted ITL slopes, ms a token of input: H100 (Figure 3, BF16) and B200 (Figure 6, BF16). */
const BLOG_SLOPE_MS = { 'h100-sxm': 8.94e-6, b200: 3.56e-6 } as const;

/** The estimate's TPOT of gpt-oss-20b at one request, `input` tokens in and 128 out, as the post's client ran it. */
function tpot(gpu: keyof typeof BLOG_SLOPE_MS, input: number): number {
  const f: RawFlags = {
    model: 'gpt-oss-20b',
    gpu,
    method: 'inference',
    framework: 'vllm',
    weights: 'mxfp4',
    batch: 1,
    seq: input + 128,
    'prompt-tokens': input,
  };
  const o = optionsFromFlags(f);
  return buildEstimate(resolveModel('gpt-oss-20b'), o, findGpu(gpu), timeOptionsFromFlags(f, o))
    .time!.tpotSeconds!;
}

describe("gpt-oss-20b's decode step over the context, against the vLLM blog's fitted slopes", () => {
  for (const gpu of ['h100-sxm', 'b200'] as const)
    it(`${gpu}: the step grows within 10% of the measured slope from 1K to 64K tokens in`, () => {
      const grown = (tpot(gpu, 65536) - tpot(gpu, 1024)) * 1e3;
      const measured = BLOG_SLOPE_MS[gpu] * (65536 - 1024);
      expect(Math.abs(grown / measured - 1)).toBeLessThan(0.1);
    });

  it('the step never shrinks as the context grows (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('h100-sxm' as const, 'b200' as const),
        fc.integer({ min: 256, max: 60000 }),
        fc.integer({ min: 1, max: 60000 }),
        (gpu, a, d) => tpot(gpu, a + d) >= tpot(gpu, a),
      ),
      { numRuns: 20 },
    );
  });
});
