/**
 * transformers 5's grouped_mm_experts_forward (integrations/moe.py @8b584a67) gathers, sorts, scales, unsorts and sums
 * every routed row around its two grouped matmuls: 9 hidden-wide passes a routed row in forward plus the top-k sum's
 * write a token (engines/hf/memory.ts, time/grouped-mm.ts groupedRowBytes). torchtitan's LocalTokenDispatcher
 * (pytorch/torchtitan@b5bcd76c torchtitan/models/common/token_dispatcher.py) gathers the routed rows and combines them
 * through a float32 score multiply and a scatter-add: 14 passes eager, 6 where the model runs compiled
 * (engines/torchtitan/memory.ts). Engines whose grouped experts are other code (Unsloth's grouped_mm backend) do not
 * count it, nor does the per-expert loop.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { groupedRowBytes } from '../../src/core/time/grouped-mm.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const full = (framework: string) =>
  optionsFromFlags({
    method: 'full',
    weights: 'bf16',
    'optimizer-states': 'bf16',
    batch: 1,
    seq: 4096,
    checkpointing: 'full',
    attention: 'sdpa',
    zero: 3,
    gpus: 8,
    framework,
    gpu: 'h100-sxm',
  });

describe("grouped experts: the wrapper's routed-row traffic (transformers 5, torchtitan)", () => {
  const m = modelFacts(resolveModel('qwen3-30b-a3b'));

  it('counts 9 passes a routed row and one a token, over every MoE layer (Qwen3-30B-A3B, 4,096 tokens)', () => {
    const bytes = groupedRowBytes(m, full('hf-fsdp'), 4096, m.layers, true);
    expect(bytes).toBe(4096 * (9 * m.topK + 1) * m.hidden * 2 * m.moeLayers);
    // 48 layers x 4,096 tokens x (9 x 8 + 1) x 2,048 x 2 bytes: about 58.8 GB a forward.
    expect(bytes / 1e9).toBeCloseTo(58.8, 0);
  });

  it('none for the per-expert loop, for a dense model, or for an engine whose grouped experts are other code', () => {
    expect(groupedRowBytes(m, full('hf-fsdp'), 4096, m.layers, false)).toBe(0);
    const dense = modelFacts(resolveModel('qwen3-8b'));
    expect(groupedRowBytes(dense, full('hf-fsdp'), 4096, dense.layers, true)).toBe(0);
    expect(groupedRowBytes(m, full('unsloth'), 4096, m.layers, true)).toBe(0);
  });

  it("torchtitan's dispatch and combine: 14 passes a routed row eager, 6 compiled, one a token either way", () => {
    const eager = groupedRowBytes(m, full('torchtitan'), 4096, m.layers, true);
    expect(eager).toBe(4096 * (14 * m.topK + 1) * m.hidden * 2 * m.moeLayers);
    const compiled = groupedRowBytes(m, full('torchtitan'), 4096, m.layers, true, true);
    expect(compiled).toBe(4096 * (6 * m.topK + 1) * m.hidden * 2 * m.moeLayers);
    // transformers 5's wrapper has no compiled count of its own: compiling leaves its 9 passes.
    expect(groupedRowBytes(m, full('hf-fsdp'), 4096, m.layers, true, true)).toBe(
      groupedRowBytes(m, full('hf-fsdp'), 4096, m.layers, true),
    );
  });

  it('a torchtitan step prices them: slower than the same step without them', () => {
    const o = full('torchtitan');
    const t = defaultTimeOptions(1);
    const w = trainWork(m, o, t);
    const b200 = gpuRates(findGpu('b200'), t);
    const rows = groupedRowBytes(m, o, w.tokens, m.layers, true);
    expect(rows).toBeGreaterThan(0);
    expect(trainStep(w, b200)).toBeGreaterThan(
      trainStep({ ...w, fwdElemBytes: w.fwdElemBytes - rows }, b200),
    );
  });

  it("adds to the step's elementwise traffic, so the H100 FSDP step is slower with it", () => {
    const o = full('hf-fsdp');
    const t = defaultTimeOptions(1);
    const w = trainWork(m, o, t);
    const h100 = gpuRates(findGpu('h100-sxm'), t);
    const withRows = trainStep(w, h100);
    const rows = groupedRowBytes(m, o, w.tokens, m.layers, true);
    const without = trainStep({ ...w, fwdElemBytes: w.fwdElemBytes - rows }, h100);
    expect(withRows).toBeGreaterThan(without);
  });
});

// torchtitan's gpt-oss experts (GptOssGroupedExperts.forward and swiglu, torchtitan/models/gpt_oss/moe.py @b5bcd76c):
// two bias repeat_interleaves and adds and the clamped SwiGLU, 26 passes over the expert width a routed row in forward
// where the gated activation every layer is priced at is 5 (engines/torchtitan/memory.ts expertActivationPasses).
describe("grouped experts: a model's own expert activation (torchtitan's gpt-oss)", () => {
  const gptOss = modelFacts(resolveModel('gpt-oss-20b'));
  const qwen = modelFacts(resolveModel('qwen3-30b-a3b'));

  it('adds 21 expert-width passes a routed row to the dispatcher rows, eager only', () => {
    const o = full('torchtitan');
    const eager = groupedRowBytes(gptOss, o, 4096, gptOss.layers, true);
    const rows = 4096 * (14 * gptOss.topK + 1) * gptOss.hidden;
    const act = 4096 * 21 * gptOss.expertFfn * gptOss.topK;
    expect(eager).toBe((rows + act) * 2 * gptOss.moeLayers);
    const compiled = groupedRowBytes(gptOss, o, 4096, gptOss.layers, true, true);
    expect(compiled).toBe(4096 * (6 * gptOss.topK + 1) * gptOss.hidden * 2 * gptOss.moeLayers);
  });

  it('leaves the models whose experts run the gated activation, and other engines, as they were', () => {
    expect(groupedRowBytes(qwen, full('torchtitan'), 4096, qwen.layers, true)).toBe(
      4096 * (14 * qwen.topK + 1) * qwen.hidden * 2 * qwen.moeLayers,
    );
    expect(groupedRowBytes(gptOss, full('hf-fsdp'), 4096, gptOss.layers, true)).toBe(
      4096 * (9 * gptOss.topK + 1) * gptOss.hidden * 2 * gptOss.moeLayers,
    );
  });

  it("slows torchtitan's eager gpt-oss-20b step on a B200", () => {
    const o = full('torchtitan');
    const t = defaultTimeOptions(1);
    const w = trainWork(gptOss, o, t);
    const b200 = gpuRates(findGpu('b200'), t);
    const act = 21 * gptOss.expertFfn * gptOss.topK * w.tokens * 2 * gptOss.moeLayers;
    expect(trainStep(w, b200)).toBeGreaterThan(
      trainStep({ ...w, fwdElemBytes: w.fwdElemBytes - act }, b200),
    );
  });
});
