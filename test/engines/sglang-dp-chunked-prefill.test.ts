// SGLang fills one extend forward with at most its chunked-prefill size (server_args.py
// `_handle_gpu_memory_settings`: 8192 tokens on a 60-160 GiB card, 16384 above), and under DP attention divides that
// size by the DP size (`_handle_data_parallelism`: chunked_prefill_size // dp_size, sglang 0.5.5.post1 to 0.5.7), so
// a DP rank prefills a longer prompt in several eager forwards, each launching its kernels again
// (time/graph-step.ts prefillForwards, chunkedPrefillHostSeconds).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { eagerPrefillHostSeconds } from '../../src/core/time/decode.js';
import { denseFacts, rankOptions } from '../../src/core/time/expert-parallel.js';
import { chunkedPrefillHostSeconds, prefillForwards } from '../../src/core/time/graph-step.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { servingTime } from '../../src/core/time/serving-request.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const options = (framework: string, dp: boolean) => {
  const f = {
    method: 'inference',
    framework,
    gpus: 8,
    tp: dp ? 1 : 8,
    ...(dp ? { ep: 8, 'dp-attention': true } : {}),
    batch: 8,
    seq: 5000,
    'prompt-tokens': 4096,
    weights: 'fp8',
  };
  return withEngineDefaults(optionsFromFlags(f), f);
};
const rates = (gpu: string) => gpuRates(findGpu(gpu), defaultTimeOptions(8));

describe("SGLang's chunked prefill under DP attention", () => {
  it('is an SGLang profile fact', () => {
    expect(FRAMEWORKS.sglang.dpAttentionChunkSplit).toBe(true);
    expect(FRAMEWORKS.vllm.dpAttentionChunkSplit).toBeUndefined();
  });

  it("splits a rank's prompt by the card's chunk over the DP size", () => {
    const o = options('sglang', true);
    const rank = rankOptions(o);
    // H200 (141 GB): 8192 // 8 = 1024 tokens a forward; B200 (above 160 GiB): 16384 // 8 = 2048.
    expect(prefillForwards(rank, rates('h200-sxm'), 4096, o)).toEqual({
      forwards: 4,
      tokens: 1024,
    });
    expect(prefillForwards(rank, rates('b200'), 4096, o)).toEqual({ forwards: 2, tokens: 2048 });
    expect(prefillForwards(rank, rates('h200-sxm'), 1000, o)).toEqual({
      forwards: 1,
      tokens: 1000,
    });
  });

  it('keeps the whole chunk without DP attention, and one forward where prefills are captured', () => {
    const tp = options('sglang', false);
    expect(prefillForwards(tp, rates('h200-sxm'), 4096)).toEqual({ forwards: 1, tokens: 4096 });
    expect(prefillForwards(tp, rates('h200-sxm'), 20000)).toEqual({ forwards: 3, tokens: 8192 });
    const v = options('vllm', true);
    expect(prefillForwards(rankOptions(v), rates('h200-sxm'), 4096, v).forwards).toBe(1);
  });

  it("prices each forward's launches and lengthens a DP rank's TTFT by the extra forwards", () => {
    const o = options('sglang', true);
    const rank = rankOptions(o);
    const m = denseFacts(modelFacts(resolveModel('deepseek-v3')));
    const r = rates('h200-sxm');
    const one = eagerPrefillHostSeconds(m, rank, r.cc, 1024, undefined, o);
    expect(chunkedPrefillHostSeconds(m, rank, r, 4096, undefined, o)).toBeCloseTo(4 * one, 12);
    // The rank's TTFT is at least its four forwards' launches and one decode step.
    const t = defaultTimeOptions(o.gpus);
    expect(servingTime(m, rank, t, r, o).ttft).toBeGreaterThan(4 * one);
  });
});
