// SGLang's custom all-reduce above its one-stage sizes (engines/sglang/all-reduce.ts): inside a fully NVLinked node at
// more than two ranks a call of 256 KiB or more at 8 ranks (512 KiB at 4), up to 8 MiB, takes the two-stage kernel's
// fixed part and its bus bytes at the timed rate; smaller calls, vLLM, two ranks, and the all-reduces SGLang fuses
// with their norms into FlashInfer's kernel on SM100 keep the one-stage pricing.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { decodeTpSeconds } from '../../src/core/time/decode-tp.js';
import { vocabParallelLogitsSeconds } from '../../src/core/time/vocab-parallel.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { SGLANG_TWO_STAGE_ALL_REDUCE } from '../../src/core/engines/sglang/all-reduce.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const llama70b = modelFacts(resolveModel('meta-llama/Llama-3.1-70B'));
const opts = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'sglang',
  gpus: 8,
  tp: 8,
  ...o,
});
const rates = (gpu: string, tp = 8) => gpuRates(findGpu(gpu), defaultTimeOptions(tp));
// One decode step's all-reduces: 2 a layer of batch x hidden x 2 bytes, and the vocabulary-parallel embedding's.
const calls = 2 * llama70b.layers + 1;
/** A step's all-reduces of the hidden state alone: less the logits' gather (time/vocab-parallel.ts). */
const reduces = (o: EstimateOptions, batch: number, r: ReturnType<typeof rates>) =>
  decodeTpSeconds(llama70b, o, batch, r) - vocabParallelLogitsSeconds(llama70b, o, batch, r);

describe("SGLang's two-stage custom all-reduce", () => {
  it('prices a call from 256 KiB at 8 ranks as the timed fixed part plus its bus bytes', () => {
    const r = rates('h100-sxm');
    const batch = 64; // 64 x 8192 x 2 = 1 MiB
    const bytes = batch * llama70b.hidden * 2;
    const perCall = reduces(opts({ batch }), batch, r) / calls;
    const two = SGLANG_TWO_STAGE_ALL_REDUCE;
    expect(perCall).toBeCloseTo(two.seconds + (2 * bytes * 7) / 8 / two.busBytesPerSecond, 9);
    // vLLM's profile keeps the one-stage pricing at the same call.
    const vllm = reduces(opts({ batch, framework: 'vllm' }), batch, r) / calls;
    expect(perCall).toBeGreaterThan(vllm * 1.3);
  });

  it('keeps the one-stage pricing below 256 KiB at 8 ranks, and at 4 ranks below 512 KiB', () => {
    const r = rates('h100-sxm');
    const at = (batch: number, framework: 'sglang' | 'vllm', tp = 8) =>
      decodeTpSeconds(
        llama70b,
        opts({ batch, framework, tp, gpus: tp }),
        batch,
        rates('h100-sxm', tp),
      );
    expect(at(8, 'sglang')).toBeCloseTo(at(8, 'vllm'), 12); // 128 KiB
    expect(at(24, 'sglang', 4)).toBeCloseTo(at(24, 'vllm', 4), 12); // 384 KiB at 4 ranks
    expect(at(24, 'sglang')).toBeGreaterThan(at(24, 'vllm')); // 384 KiB at 8 ranks: two-stage
    expect(r.intraMany).toBeGreaterThan(0);
  });

  it('leaves calls above 8 MiB to NCCL, and two ranks to the one-stage kernel', () => {
    const big = 1024; // 16 MiB a call
    const r = rates('h100-sxm');
    expect(decodeTpSeconds(llama70b, opts({ batch: big }), big, r)).toBeCloseTo(
      decodeTpSeconds(llama70b, opts({ batch: big, framework: 'vllm' }), big, r),
      12,
    );
    const r2 = rates('h100-sxm', 2);
    const two = (framework: 'sglang' | 'vllm') =>
      decodeTpSeconds(llama70b, opts({ batch: 64, tp: 2, gpus: 2, framework }), 64, r2);
    expect(two('sglang')).toBeCloseTo(two('vllm'), 12);
  });

  it('does not apply where SGLang fuses the all-reduce with the norm (DeepSeek-V3 on SM100)', () => {
    const dsv3 = modelFacts(resolveModel('deepseek-ai/DeepSeek-V3'));
    const r = rates('b200');
    const at = (framework: 'sglang' | 'vllm') =>
      decodeTpSeconds(dsv3, opts({ batch: 64, framework, weights: 'fp8' }), 64, r);
    expect(at('sglang')).toBeCloseTo(at('vllm'), 12);
  });
});
