// The Triton fused_moe pads each expert's routed rows to whole BLOCK_SIZE_M blocks and multiplies the padded rows
// (time/moe-pad-rows.ts; the expectation itself: expert-balance.test.ts), and its 16-bit GEMMs run below the card's
// GEMM rate once its row blocks fill (FusedMoeGrid.largeMPeakShare, from benchmark_moe.py tables in vllm-project/vllm#40542 and vllm-project/vllm#24700).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRITON_FUSED_MOE_LARGE_M_SHARE } from '../../src/core/engines/sglang/fused-moe-grid.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { expectedPaddedRows } from '../../src/core/time/expert-balance.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { tritonMoeRate, tritonPaddedFlops } from '../../src/core/time/moe-pad-rows.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

describe("the Triton fused_moe's padded rows", () => {
  it('pads GLM-4.5-Air on an A100 at 256 running to 64-row blocks (its 16 rows an expert, 4x)', () => {
    // 256 tokens x top-8 over 128 experts: 16 rows an expert on average, BLOCK_SIZE_M 64 above E tokens.
    const m = modelFacts(resolveModel('zai-org/GLM-4.5-Air'));
    const extra = tritonPaddedFlops(m, FRAMEWORKS.vllm, { batch: 256, blockFp8: false, tp: 4 });
    const routed = (2 * m.expertWeightsPerLayer * m.moeLayers * 256 * m.topK) / 4;
    expect(extra / routed).toBeGreaterThan(2.9);
    expect(extra / routed).toBeLessThan(3.1);
  });

  it('never runs fewer padded and routed rows with more tokens', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4095 }), fc.boolean(), (batch, blockFp8) => {
        const rows = (b: number): number =>
          tritonPaddedFlops(m, FRAMEWORKS.vllm, { batch: b, blockFp8, tp: 1 }) +
          (2 * m.expertWeightsPerLayer * m.moeLayers * b * m.topK) / 1;
        expect(rows(batch + 1)).toBeGreaterThanOrEqual(rows(batch) * (1 - 1e-12));
      }),
      { numRuns: 200 },
    );
  });
});

describe("the 16-bit Triton fused_moe's rate once its blocks fill", () => {
  it('holds the A100 and H100 to the shares the kernel tables give, not Blackwell or block FP8', () => {
    const step = { batch: 1024, blockFp8: false };
    const a100 = gpuRates(findGpu('a100-80gb-sxm'), defaultTimeOptions(1));
    const h100 = gpuRates(findGpu('h100-sxm'), defaultTimeOptions(1));
    expect(tritonMoeRate(FRAMEWORKS.vllm, a100, step, a100.gemm16)).toBeCloseTo(
      TRITON_FUSED_MOE_LARGE_M_SHARE.ampere * a100.peak16,
      -6,
    );
    expect(tritonMoeRate(FRAMEWORKS.sglang, h100, step, h100.gemm16)).toBeCloseTo(
      TRITON_FUSED_MOE_LARGE_M_SHARE.hopper * h100.peak16,
      -6,
    );
    const b200 = gpuRates(findGpu('b200'), defaultTimeOptions(1));
    expect(tritonMoeRate(FRAMEWORKS.vllm, b200, step, b200.gemm16)).toBe(b200.gemm16);
    expect(tritonMoeRate(FRAMEWORKS.vllm, a100, { ...step, blockFp8: true }, 1e15)).toBe(1e15);
  });

  it("lengthens vLLM's GLM-4.5-Air step on four A100s at 256 running beyond its weight read", () => {
    const m = modelFacts(resolveModel('zai-org/GLM-4.5-Air'));
    const o = {
      ...defaultOptions('inference'),
      framework: 'vllm' as const,
      tp: 4,
      batch: 256,
      seq: 419,
    };
    const t = defaultTimeOptions(4);
    const r = gpuRates(findGpu('a100-80gb-sxm'), t);
    const withKernel = decodeStep(m, o, t, r, false, 319).stepSeconds;
    // The same step on a profile without the fused_moe grid: no padded rows, experts at the card's GEMM rate.
    const vllm = FRAMEWORKS.vllm;
    const tile = vllm.fusedMoeTile16;
    expect(tile?.grid).toBeDefined();
    try {
      (vllm as { fusedMoeTile16?: unknown }).fusedMoeTile16 = { ...tile, grid: undefined };
      const without = decodeStep(m, o, t, r, false, 319).stepSeconds;
      expect(withKernel).toBeGreaterThan(without * 1.03);
    } finally {
      (vllm as { fusedMoeTile16?: unknown }).fusedMoeTile16 = tile;
    }
  });
});

// flagos-ai/FlagGems#4434 (https://github.com/flagos-ai/FlagGems/pull/4434, "Performance result", cuda 13.0.2, torch
// 2.11.0, vLLM 0.20.2): Mixtral-8x7B's experts (E=8, H=4096, I=14336, top-2) in block FP8 on one H20, the `vLLM`
// column (vLLM's Triton fused_moe), ms at 256 and 512 tokens. Above 64 tokens vLLM's block-FP8 default takes 64-row
// blocks (engines/vllm/moe-tiles.ts, after vllm-project/vllm#34846); no tuned H20 file for E=8,N=14336 block FP8 was
// found in vLLM's configs.
const FLAGGEMS_H20_MIXTRAL_FP8_MS = { 256: 1.21, 512: 1.871 } as const;

describe("the padded rows against a published fused_moe timing (flagos-ai/FlagGems#4434's H20 Mixtral)", () => {
  it('grow from 256 to 512 tokens nearer the measured 1.55x than the routed rows do (2x)', () => {
    const m = modelFacts(resolveModel('mixtral-8x7b-v0.1'));
    expect([m.experts, m.topK]).toEqual([8, 2]);
    const padded = (t: number) => m.experts * expectedPaddedRows(t, m.topK / m.experts, 64);
    const measured = FLAGGEMS_H20_MIXTRAL_FP8_MS[512] / FLAGGEMS_H20_MIXTRAL_FP8_MS[256];
    const routed = 2;
    const withPadding = padded(512) / padded(256);
    // 64 rows an expert at 256 tokens (sd 6.9): about half the experts spill into a second 64-row block, 47% more
    // rows than routed; 128 at 512 (sd 9.8), 24% more. Padded: 1.69x, measured 1.55x.
    expect(withPadding).toBeGreaterThan(measured);
    expect(withPadding).toBeLessThan(routed);
    expect(Math.abs(withPadding - measured)).toBeLessThan(Math.abs(routed - measured) / 2);
  });
});
