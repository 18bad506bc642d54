// vLLM V1's default FULL_AND_PIECEWISE (since vllm-project/vllm#25444) replays one full CUDA graph for a decode-only
// step and piecewise graphs for a step that also holds a prompt chunk (CompilationConfig.cudagraph_mode docstring,
// vllm/config/compilation.py): the mixed step issues each layer's attention op from Python between the pieces
// (engines/vllm/piecewise.ts), so a neighbour's prefill costs a small model's decoders that host work, not only the
// chunk's GPU work (time/mixed-step.ts, FrameworkProfile.mixedStepsPiecewise).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_PIECEWISE_ATTENTION_CALLS } from '../../src/core/engines/vllm/piecewise.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { mixedStepExtraSeconds, mixedStepTime } from '../../src/core/time/mixed-step.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { servingTime } from '../../src/core/time/serving-request.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const EAGER_OP = 10e-6; // time/train-work.ts EAGER_OP_SECONDS
// One FlashAttention layer's eager op on the piecewise path: its two kernels and its measured Python.
const KV_LAYER =
  VLLM_PIECEWISE_ATTENTION_CALLS.kv * EAGER_OP +
  (VLLM_PIECEWISE_ATTENTION_CALLS.kvPythonSeconds ?? 0);
// AccelMark's Suite F shape (FreedomIntelligence/AccelMark suites/suite_F/suite.json): Qwen2.5-0.5B-Instruct, prompts of
// about 100 tokens with the chat template, 150 out.
const QWEN05B_SUITE_F = { prompt: 100, seq: 250 };
const m = modelFacts(resolveModel('qwen2.5-0.5b'));
const gpu = findGpu('a100-80gb-sxm');
const optionsAt = (batch: number, framework = 'vllm') => {
  const f = {
    method: 'inference',
    framework,
    batch,
    seq: QWEN05B_SUITE_F.seq,
    'prompt-tokens': QWEN05B_SUITE_F.prompt,
  };
  return withEngineDefaults(optionsFromFlags(f), f);
};
const timeOf = (extra: Partial<TimeOptions> = {}): TimeOptions => ({
  ...defaultTimeOptions(1),
  ...extra,
});
const ctx = QWEN05B_SUITE_F.prompt + (QWEN05B_SUITE_F.seq - QWEN05B_SUITE_F.prompt) / 2;

describe("vLLM V1's mixed prefill-decode steps under FULL_AND_PIECEWISE", () => {
  it('the profile says so; SGLang, whose prefill runs as a batch of its own, does not', () => {
    expect(VLLM_MEMORY.mixedStepsPiecewise).toBe(true);
    expect(SGLANG_MEMORY.mixedStepsPiecewise).toBeUndefined();
    const t = timeOf();
    expect(mixedStepTime(optionsAt(8, 'sglang'), t, gpuRates(gpu, t), 108)).toBeUndefined();
  });

  it("a small model's step that holds a chunk pays each attention layer's eager op on the host", () => {
    const t = timeOf();
    const r = gpuRates(gpu, t);
    const o = optionsAt(15);
    // The mixed step lasts at least the engine core's own step work (the async loop's floor and 10 µs a request) and,
    // issued from the same thread, the 24 attention layers' eager ops.
    const own =
      (VLLM_MEMORY.asyncStepHostSeconds ?? 0) + 15 * (VLLM_MEMORY.asyncSeqHostSeconds ?? 0);
    const extra = mixedStepExtraSeconds(m, o, t, r, ctx, QWEN05B_SUITE_F.prompt);
    const plain = decodeStep(m, o, t, r, false, ctx).stepSeconds;
    expect(m.layers).toBe(24);
    expect(plain).toBeLessThan(own + 24 * KV_LAYER);
    expect(plain + extra).toBeGreaterThanOrEqual(own + 24 * KV_LAYER);
    // Each of the other 14 requests is replaced once while one decodes its 150 tokens: its TPOT carries 14 such steps.
    const { tpot } = servingTime(m, o, t, r);
    expect(tpot - plain).toBeGreaterThanOrEqual((14 * extra) / 150);
  });

  it('no extra where every step already runs piecewise, on V0, under --enforce-eager or past the captured sizes', () => {
    const o = optionsAt(15);
    for (const extra of [
      { piecewiseGraphs: true },
      { v0Scheduler: true },
      { graphMaxBatch: 0 },
      { decodeOnly: true },
    ] as Partial<TimeOptions>[]) {
      const t = timeOf(extra);
      expect(mixedStepTime(o, t, gpuRates(gpu, t), 115), JSON.stringify(extra)).toBeUndefined();
    }
    // A step of more scheduled tokens than the largest captured size replays no graph (CudagraphDispatcher: NONE).
    const t = timeOf();
    const r = gpuRates(gpu, t);
    expect(mixedStepTime(o, t, r, 512)).toBeDefined();
    expect(mixedStepTime(o, t, r, 513)).toBeUndefined();
    expect(mixedStepExtraSeconds(m, o, t, r, ctx, 8192)).toBe(0);
  });

  it('more requests never lower a mixed step, and it never costs less than the plain step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 1, max: 64 }), (b, d) => {
        const t = timeOf();
        const r = gpuRates(gpu, t);
        const mixed = mixedStepTime(optionsAt(b), t, r, b)!;
        const at = (n: number) => decodeStep(m, optionsAt(n), mixed, r, false, ctx).stepSeconds;
        const plain = decodeStep(m, optionsAt(b), t, r, false, ctx).stepSeconds;
        return at(b + d) >= at(b) - 1e-12 && at(b) >= plain;
      }),
      { numRuns: 40 },
    );
  });
});
