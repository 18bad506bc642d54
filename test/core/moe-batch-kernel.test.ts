// llama.cpp's MUL_MAT_ID at a decode batch (FrameworkProfile.moeBatchKernel, time/moe-tile.ts): per-(token, slot)
// mat-vecs up to 4 tokens, each reading its expert again; above, MMQ tiles as wide as the step's tokens for every
// routed expert, however few tokens it was routed.
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import {
  paddedExpertFlops,
  perSlotExpertRead,
  tileColumns,
  tileExpertReadFloor,
} from '../../src/core/time/moe-tile.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const t = { ...defaultTimeOptions(1), decodeOnly: true };
const fw = FRAMEWORKS['llama.cpp'];
const tile = fw.moeBatchKernel!.tile;
const moe = modelFacts(resolveModel('gpt-oss-20b'));
const opts = (framework: string, batch: number, weights = 'mxfp4'): EstimateOptions =>
  ({ ...defaultOptions('inference'), framework, weights, batch, seq: 64 }) as EstimateOptions;
const tokS = (framework: string, gpu: string, batch: number): number =>
  decodeStep(moe, opts(framework, batch), t, gpuRates(findGpu(gpu), t), false).tokensPerSecond;

describe('MMQ tile width (mul_mat_q_case)', () => {
  it('the narrowest multiple of 8 that covers the tokens, of 16 from 48, at most 128', () => {
    expect(tileColumns(5, tile)).toBe(8);
    expect(tileColumns(17, tile)).toBe(24);
    expect(tileColumns(33, tile)).toBe(40);
    expect(tileColumns(49, tile)).toBe(64);
    expect(tileColumns(100, tile)).toBe(112);
    expect(tileColumns(300, tile)).toBe(112); // three tiles of 112 cover 300, as three of 128 would
  });
});

describe('per-slot expert reads up to MMVQ_MMID_MAX_BATCH_SIZE', () => {
  it('B x topK experts a layer from 2 to 4 tokens; none at 1 or above 4, nor on a dense model', () => {
    const w = moe.expertWeightsPerLayer * moe.moeLayers;
    expect(perSlotExpertRead(moe, fw, 3, 8.6)).toBe(3 * moe.topK * w);
    expect(perSlotExpertRead(moe, fw, 1, 8.6)).toBeNull();
    expect(perSlotExpertRead(moe, fw, 5, 8.6)).toBeNull();
    expect(perSlotExpertRead(modelFacts(resolveModel('llama-3.1-8b')), fw, 3, 8.6)).toBeNull();
    expect(perSlotExpertRead(moe, FRAMEWORKS.vllm, 3, 8.6)).toBeNull();
  });
});

describe("MMQ's expert read past MMVQ_MMID_MAX_BATCH_SIZE", () => {
  it('no less than the per-slot read at 4 tokens; none at or below 4, on a dense model or another engine', () => {
    const mixtral = modelFacts(resolveModel('mixtral-8x7b'));
    const w = mixtral.expertWeightsPerLayer * mixtral.moeLayers;
    expect(tileExpertReadFloor(mixtral, fw, 5, 8.6)).toBe(4 * mixtral.topK * w);
    expect(tileExpertReadFloor(mixtral, fw, 64, 8.6)).toBe(perSlotExpertRead(mixtral, fw, 4, 8.6));
    expect(tileExpertReadFloor(mixtral, fw, 4, 8.6)).toBe(0);
    expect(tileExpertReadFloor(modelFacts(resolveModel('llama-3.1-8b')), fw, 8, 8.6)).toBe(0);
    expect(tileExpertReadFloor(mixtral, FRAMEWORKS.vllm, 8, 8.6)).toBe(0);
  });

  it("Mixtral's step at 5 tokens is no faster than at 4 (8 slot reads of 8 experts against 6.1 distinct)", () => {
    const mixtral = modelFacts(resolveModel('mixtral-8x7b'));
    const r = gpuRates(findGpu('a100-80gb-sxm'), t);
    const step = (b: number) =>
      decodeStep(mixtral, opts('llama.cpp', b, 'q4_k_m'), t, r, false).stepSeconds;
    expect(step(5)).toBeGreaterThanOrEqual(step(4));
  });
});

describe('padded expert FLOPs above it', () => {
  it('every routed expert multiplies a whole tile: distinct x width columns less the routed B x topK', () => {
    const w = moe.expertWeightsPerLayer * moe.moeLayers;
    const f = paddedExpertFlops(moe, fw, { batch: 32, cc: 8.6, expertRead: 30 * w, tp: 1 });
    expect(f / (2 * w * (30 * 32 - 32 * moe.topK))).toBeCloseTo(1, 9);
    expect(paddedExpertFlops(moe, fw, { batch: 4, cc: 8.6, expertRead: 12 * w, tp: 1 })).toBe(0);
    expect(paddedExpertFlops(moe, fw, { batch: 32, cc: 7.0, expertRead: 30 * w, tp: 1 })).toBe(0);
    const vllm = FRAMEWORKS.vllm;
    expect(paddedExpertFlops(moe, vllm, { batch: 32, cc: 8.6, expertRead: 30 * w, tp: 1 })).toBe(0);
  });

  it("slows llama.cpp's batched MoE decode on an RTX 3090 as the batch grows, not vLLM's", () => {
    const at = (b: number): number => tokS('llama.cpp', 'rtx-3090', b);
    // ggml-org/llama.cpp#20586: 1227.84 t/s at 32 columns, 1663.09 at 64 (1.35x); routed FLOPs alone gave ~1.9x.
    expect(at(64) / at(32)).toBeLessThan(1.5);
    expect(at(64) / at(32)).toBeGreaterThan(1.1);
    const vllm = tokS('vllm', 'rtx-3090', 64) / tokS('vllm', 'rtx-3090', 32);
    expect(vllm).toBeGreaterThan(at(64) / at(32));
  });
});
