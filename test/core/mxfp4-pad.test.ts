// vLLM pads an MXFP4 MoE checkpoint's experts to its kernel's shape (engines/vllm/mxfp4-pad.ts), and a decode step's
// expert GEMMs read the padded weights: gpt-oss's hidden size and expert width, 2880, round up by kernel path.
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeTraffic } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { mxfp4ExpertPadFactor } from '../../src/core/time/mxfp4-pad.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const oss20 = modelFacts(resolveModel('gpt-oss-20b'));
const oss120 = modelFacts(resolveModel('gpt-oss-120b'));
const vllm = FRAMEWORKS.vllm;
const mx = (tp = 1, ep?: number) => ({ weights: 'mxfp4' as const, tp, ...(ep ? { ep } : {}) });

describe('MXFP4 experts at vLLM padded shape', () => {
  it('pads gpt-oss by kernel path: Marlin 3072 x 2944, TensorRT-LLM-gen and ROCm 3072 x 3072, triton_kernels none', () => {
    const plain = 2880 * 2880;
    // Ampere (Marlin in every build), and Hopper, where vLLM's launch passes `--moe-backend marlin`.
    for (const cc of [8, 9])
      expect(mxfp4ExpertPadFactor(oss20, vllm, mx(), { cc, rocm: false }, 'marlin')).toBeCloseTo(
        (3072 * 2944) / plain,
        12,
      );
    // SM100's FlashInfer MoE and ROCm: both to 256.
    expect(mxfp4ExpertPadFactor(oss20, vllm, mx(), { cc: 10, rocm: false }, 'cutlass')).toBeCloseTo(
      (3072 * 3072) / plain,
      12,
    );
    expect(mxfp4ExpertPadFactor(oss20, vllm, mx(), { cc: 0, rocm: true }, 'marlin')).toBeCloseTo(
      (3072 * 3072) / plain,
      12,
    );
  });

  it('pads one GPU share of the width under TP, the whole width under EP', () => {
    // gpt-oss-120b over TP 8: 360 columns a GPU, Marlin's 384, FlashInfer's 512.
    const h = { cc: 9, rocm: false };
    expect(mxfp4ExpertPadFactor(oss120, vllm, mx(8), h, 'marlin')).toBeCloseTo(
      (3072 * 384) / (2880 * 360),
      12,
    );
    expect(
      mxfp4ExpertPadFactor(oss120, vllm, mx(8), { cc: 10, rocm: false }, 'cutlass'),
    ).toBeCloseTo((3072 * 512) / (2880 * 360), 12);
    // Under EP 8 a GPU holds whole experts: the full 2880 width, padded as on one GPU.
    expect(mxfp4ExpertPadFactor(oss120, vllm, mx(8, 8), h, 'marlin')).toBeCloseTo(
      (3072 * 2944) / (2880 * 2880),
      12,
    );
  });

  it('leaves other weights, dense models and engines without the profile field unpadded', () => {
    const b200 = { cc: 10, rocm: false };
    expect(mxfp4ExpertPadFactor(oss20, vllm, { weights: 'bf16', tp: 1 }, b200, null)).toBe(1);
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    expect(mxfp4ExpertPadFactor(dense, vllm, mx(), b200, 'cutlass')).toBe(1);
    expect(mxfp4ExpertPadFactor(oss20, FRAMEWORKS.sglang, mx(), b200, 'cutlass')).toBe(1);
  });

  it("a vLLM decode step on a B200 reads gpt-oss-20b's routed experts at the padded size", () => {
    const o: EstimateOptions = {
      ...defaultOptions('inference'),
      weights: 'mxfp4',
      framework: 'vllm',
      batch: 16,
      seq: 2067,
    };
    const t = defaultTimeOptions(1);
    const r = gpuRates(findGpu('b200'), t, true);
    const padded = decodeTraffic(oss20, o, t, r, 16, 1567);
    const pad = vllm.mxfp4ExpertPad;
    try {
      delete (vllm as { mxfp4ExpertPad?: unknown }).mxfp4ExpertPad;
      const plain = decodeTraffic(oss20, o, t, r, 16, 1567);
      expect(padded.expertGpu / plain.expertGpu).toBeCloseTo((3072 * 3072) / (2880 * 2880), 9);
      expect(
        (padded.weightGpu - plain.weightGpu) / (padded.expertGpu - plain.expertGpu),
      ).toBeCloseTo(1, 9);
    } finally {
      (vllm as { mxfp4ExpertPad?: unknown }).mxfp4ExpertPad = pad;
    }
  });
});
