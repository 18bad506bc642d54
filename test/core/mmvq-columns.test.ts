// llama.cpp's quantized mat-vec at 2-8 columns on a GA10x card: the SM cycles a weight byte each column count adds,
// from slaren's RTX 3090 Ti table in ggml-org/llama.cpp#5434 (time/mmvq-columns.ts).
import { describe, expect, it } from 'vitest';
import { decodeTraffic } from '../../src/core/time/decode.js';
import {
  METAL_EXTRA_READS,
  mmvqColumnSeconds,
  GA10X_EXTRA_CYCLES_PER_BYTE,
} from '../../src/core/time/mmvq-columns.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true };
const opts = (weights: string, batch: number): EstimateOptions =>
  ({
    ...defaultOptions('inference'),
    framework: 'llama.cpp',
    weights,
    seq: 64,
    batch,
  }) as EstimateOptions;
const added = (model: string, weights: string, gpu: string, n: number): number => {
  const m = modelFacts(resolveModel(model));
  const r = gpuRates(findGpu(gpu), t);
  return mmvqColumnSeconds(decodeTraffic(m, opts(weights, n), t, r, n, 64), r, n);
};

// ggml-org/llama.cpp#5434, slaren's RTX 3090 Ti: LLaMA 7B Q4_0, tg1 then pp2..pp8 (t/s).
const TPS = [133.54, 260.18, 381.09, 489.2, 504.63, 577.27, 623.5, 691.22];

describe("mul_mat_vec_q's added columns", () => {
  it("gives back the table's step growth for the model and card it was read from", () => {
    for (let n = 2; n <= 8; n++) {
      const growth = n / TPS[n - 1]! - 1 / TPS[0]!;
      expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-3090-ti', n) / growth).toBeCloseTo(
        1,
        2,
      );
    }
  });

  it('grows with the columns, most from 5 on (half the warps a block)', () => {
    const c = GA10X_EXTRA_CYCLES_PER_BYTE;
    for (let i = 1; i < c.length; i++) expect(c[i]!).toBeGreaterThan(c[i - 1]!);
    expect(c[3]! - c[2]!).toBeGreaterThan(3 * (c[2]! - c[1]!));
  });

  it("above 8 (MMQ, which ggml picks only past MMVQ's widest) the 8 columns' added time", () => {
    const at8 = added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-3090-ti', 8);
    expect(at8).toBeGreaterThan(0);
    expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-3090-ti', 16) / at8).toBeCloseTo(1, 9);
    expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-3090-ti', 128) / at8).toBeCloseTo(1, 9);
  });

  it('nothing at one column, on other SMs, or for 16-bit weights', () => {
    expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-3090-ti', 1)).toBe(0);
    expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'rtx-4090', 8)).toBe(0);
    expect(added('meta-llama/Llama-2-7b-hf', 'q4_0', 'h100-sxm', 8)).toBe(0);
    expect(added('meta-llama/Llama-2-7b-hf', 'fp16', 'rtx-3090', 8)).toBe(0);
  });

  it("an MoE's routed experts add none (per-slot mat-vecs of one token, MMQ above 4): its dense part does", () => {
    const moe = added('openai/gpt-oss-20b', 'mxfp4', 'rtx-3090', 8);
    const m = modelFacts(resolveModel('openai/gpt-oss-20b'));
    const r = gpuRates(findGpu('rtx-3090'), t);
    const tr = decodeTraffic(m, opts('mxfp4', 8), t, r, 8, 64);
    expect(moe).toBeGreaterThan(0);
    expect(moe).toBeLessThan((tr.issueBytes * GA10X_EXTRA_CYCLES_PER_BYTE[6]!) / r.smCycles!);
  });
});

// ggml-org/llama.cpp#10581, its own build on the author's M2 Ultra: qwen2 7B Q8_0, pp1..pp8 (t/s).
const METAL_TPS = [70.41, 126.66, 163.08, 200.4, 207.24, 210.91, 229.2, 260.76];

describe("Metal's small-batch mat-vec (kernel_mul_mv_ext) at 2-8 columns", () => {
  it("gives back the table's step growth for the model and chip it was read from", () => {
    for (let n = 2; n <= 8; n++) {
      const growth = n / METAL_TPS[n - 1]! - 1 / METAL_TPS[0]!;
      expect(added('Qwen/Qwen2.5-7B', 'q8_0', 'apple-m2-ultra-192gb', n) / growth).toBeCloseTo(
        1,
        2,
      );
    }
  });

  it('grows with the columns; above 8 keeps the 8 columns; none at one column or for 16-bit weights', () => {
    const c = METAL_EXTRA_READS;
    for (let i = 1; i < c.length; i++) expect(c[i]!).toBeGreaterThan(c[i - 1]!);
    const at8 = added('Qwen/Qwen2.5-7B', 'q8_0', 'apple-m2-ultra-192gb', 8);
    expect(added('Qwen/Qwen2.5-7B', 'q8_0', 'apple-m2-ultra-192gb', 16) / at8).toBeCloseTo(1, 9);
    expect(added('Qwen/Qwen2.5-7B', 'q8_0', 'apple-m2-ultra-192gb', 1)).toBe(0);
    expect(added('Qwen/Qwen2.5-7B', 'fp16', 'apple-m2-ultra-192gb', 4)).toBe(0);
  });

  it("an MoE's routed experts (kernel_mul_mv_id) add none: gpt-oss-20b's dense Q8_0 part does", () => {
    const moe = added('openai/gpt-oss-20b', 'mxfp4', 'apple-m2-ultra-192gb', 4);
    expect(moe).toBeGreaterThan(0);
    const m = modelFacts(resolveModel('openai/gpt-oss-20b'));
    const r = gpuRates(findGpu('apple-m2-ultra-192gb'), t);
    const tr = decodeTraffic(m, opts('mxfp4', 4), t, r, 4, 64);
    expect(moe).toBeCloseTo(
      (tr.issueBytes * (1 - tr.expertGpu / tr.weightGpu) * METAL_EXTRA_READS[2]!) / r.mem,
      12,
    );
  });
});
