// The vocabulary-parallel embedding and output layer under tensor parallelism (time/vocab-parallel.ts,
// FrameworkProfile.vocabParallel): vLLM's and SGLang's VocabParallelEmbedding all-reduces its masked lookup, and
// their LogitsProcessor gathers the head's 16-bit logit shards through NCCL after the forward, then lays them out along
// the vocabulary with a copy (engines/vllm/memory.ts VLLM_VOCAB_PARALLEL). The gather is largest where many sequences
// run over a large vocabulary: gpt-oss's 201,088 tokens at 512 running are 206 MB a step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import type { VocabParallelProfile } from '../../src/core/memory/framework-profile.js';
import { decodeStepFigures } from '../../src/core/time/decode.js';
import { decodeTpSeconds } from '../../src/core/time/decode-tp.js';
import { gpuRates, groupLink } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { ALLREDUCE_LATENCY_NVLINK } from '../../src/core/time/nccl-ring.js';
import {
  embeddingAllReduces,
  vocabParallelLogitsSeconds,
} from '../../src/core/time/vocab-parallel.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const GPT_OSS_VOCAB = 201_088; // openai/gpt-oss-120b config.json vocab_size
const m = modelFacts(resolveModel('gpt-oss-120b'));
const options = (framework: 'vllm' | 'sglang' | 'llama.cpp', batch: number, tp: number) => ({
  ...defaultOptions('inference'),
  framework,
  weights: 'mxfp4' as const,
  batch,
  tp,
  seq: 2048,
});
const rates = (tp: number) => gpuRates(findGpu('h100-sxm'), defaultTimeOptions(tp), true);

/** Runs `f` with vLLM's profile field removed, then puts it back. */
function withoutField<T>(f: () => T): T {
  const fw = FRAMEWORKS.vllm as { vocabParallel?: VocabParallelProfile };
  const saved = fw.vocabParallel;
  try {
    delete fw.vocabParallel;
    return f();
  } finally {
    fw.vocabParallel = saved;
  }
}

describe('the vocabulary-parallel output layer under TP', () => {
  it("vLLM and SGLang gather 16-bit logits and copy each once (2 + 2 B), and all-reduce the embedding's output", () => {
    expect(FRAMEWORKS.vllm.vocabParallel).toEqual({
      embeddingAllReduce: true,
      logitBytes: 2,
      reorderBytesPerLogit: 4,
    });
    expect(FRAMEWORKS.sglang.vocabParallel).toEqual(FRAMEWORKS.vllm.vocabParallel);
    expect(m.vocab).toBe(GPT_OSS_VOCAB);
  });

  it('a rank receives (tp - 1) / tp of rows x vocabulary x 2 B at the group bus rate, plus NCCL latency and the copy', () => {
    const r = rates(8);
    const rows = 512;
    const bytes = rows * GPT_OSS_VOCAB * 2;
    const expected =
      (bytes * 7) / 8 / r.intraMany + ALLREDUCE_LATENCY_NVLINK + (rows * GPT_OSS_VOCAB * 4) / r.mem;
    expect(groupLink(8, r)).toBe(r.intraMany);
    expect(vocabParallelLogitsSeconds(m, options('vllm', rows, 8), rows, r)).toBeCloseTo(
      expected,
      12,
    );
    expect(expected).toBeGreaterThan(2e-4);
  });

  it('adds nothing at TP 1, for an engine without the field, or without logits to gather', () => {
    const r = rates(4);
    expect(vocabParallelLogitsSeconds(m, options('vllm', 64, 1), 64, r)).toBe(0);
    expect(vocabParallelLogitsSeconds(m, options('llama.cpp', 64, 4), 64, r)).toBe(0);
    expect(vocabParallelLogitsSeconds(m, options('vllm', 64, 4), 0, r)).toBe(0);
    expect(embeddingAllReduces(options('vllm', 64, 1))).toBe(0);
    expect(embeddingAllReduces(options('sglang', 64, 4))).toBe(1);
    expect(embeddingAllReduces(options('llama.cpp', 64, 4))).toBe(0);
  });

  it("is in a decode step's tensor-parallel time, and the step is that much longer than without the field", () => {
    const t = defaultTimeOptions(4);
    const r = rates(4);
    const o = options('vllm', 256, 4);
    const gather = vocabParallelLogitsSeconds(m, o, 256, r);
    const tpWith = decodeTpSeconds(m, o, 256, r, t);
    const stepWith = decodeStepFigures(m, o, t, r, o.seq).step;
    const [tpWithout, stepWithout] = withoutField(() => [
      decodeTpSeconds(m, o, 256, r, t),
      decodeStepFigures(m, o, t, r, o.seq).step,
    ]);
    // The gather and one more all-reduce of the hidden state, the size of each layer's two (gpt-oss has no q/k norm).
    expect(tpWith - tpWithout).toBeGreaterThan(gather);
    expect(tpWith - tpWithout - gather).toBeCloseTo(tpWithout / (2 * m.layers), 9);
    expect(stepWith - stepWithout).toBeCloseTo(tpWith - tpWithout, 9);
  });

  it("a prefill gathers one row a prompt, not a row a token: the logits' part follows the rows alone", () => {
    const r = rates(2);
    const o = options('vllm', 8, 2);
    const t = defaultTimeOptions(2);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 512 }), fc.integer({ min: 1, max: 512 }), (a, b) => {
        const dTp = decodeTpSeconds(m, o, 4096, r, t, a) - decodeTpSeconds(m, o, 4096, r, t, b);
        const dGather =
          vocabParallelLogitsSeconds(m, o, a, r) - vocabParallelLogitsSeconds(m, o, b, r);
        expect(dTp).toBeCloseTo(dGather, 12);
        if (a > b) expect(dGather).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
  });
});
