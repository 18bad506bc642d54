// The Triton fused_moe (SGLang's and vLLM's) launches cdiv(padded slots, BLOCK_SIZE_M) x cdiv(N, BLOCK_SIZE_N)
// programs a GEMM, the slots sized for every expert's padded block before the small-batch cap (E + 1 experts in
// SGLang, E in vLLM); the programs past the routed rows return at once (time/moe-grid.ts). vLLM's launch also caps
// the row blocks at M x topk below BLOCK_SIZE_M tokens. The engine's batch-1 call figure already holds its timed
// shape's programs, so only the programs per SM beyond that shape's are priced.
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { SGLANG_FUSED_MOE_GRID } from '../../src/core/engines/sglang/fused-moe-grid.js';
import { VLLM_FUSED_MOE_GRID } from '../../src/core/engines/vllm/fused-moe-grid.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import fc from 'fast-check';
import {
  decodeExitSeconds,
  exitPrograms,
  fusedMoeExitSeconds,
  type GridStep,
} from '../../src/core/time/moe-grid.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions, type Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

function step(gpu: string, s: Omit<GridStep, 'cc' | 'sms'>): GridStep {
  const r = gpuRates(findGpu(gpu), defaultTimeOptions(s.tp));
  return { ...s, cc: r.cc, sms: r.sms ?? 0 };
}

function exitSeconds(
  id: string,
  gpu: string,
  s: Omit<GridStep, 'cc' | 'sms'>,
  framework: Framework = 'sglang',
): number {
  return fusedMoeExitSeconds(modelFacts(resolveModel(id)), FRAMEWORKS[framework], step(gpu, s));
}

describe("the fused_moe grid's early-exiting programs", () => {
  it("counts the timed shapes' programs the per-SM figures were spread over", () => {
    // sgl-project/sglang#11730: Qwen3-235B-A22B FP8 over TP 8, one token, 64 x 128 tiles, E + 1 padded.
    const q235 = modelFacts(resolveModel('qwen3-235b-a22b'));
    const fp8 = { batch: 1, tp: 8, cc: 9, sms: 132, blockFp8: true, uncapped: true };
    expect(exitPrograms(q235, SGLANG_FUSED_MOE_GRID, fp8)).toBe(4200);
    // vllm-project/vllm#19049 (the A100 call figure): Qwen3-30B-A3B at one token, 16 x 32 tiles. vLLM's launch caps
    // the row blocks at M x topk = 8 below BLOCK_SIZE_M tokens, each with a token: none returns at once, so Ampere
    // has no cost per program to spread.
    const q30 = modelFacts(resolveModel('qwen3-30b-a3b'));
    const bf16 = { batch: 1, tp: 1, cc: 8, sms: 108, blockFp8: false, uncapped: true };
    expect(exitPrograms(q30, VLLM_FUSED_MOE_GRID, bf16)).toBe(0);
    expect(VLLM_FUSED_MOE_GRID.exitProgram.ampere).toBeUndefined();
    expect(SGLANG_FUSED_MOE_GRID.exitProgram.ampere).toBeUndefined();
  });

  it('adds nothing at the shape the Hopper call figure was timed at', () => {
    const s = { batch: 1, tp: 8, blockFp8: true, uncapped: true };
    expect(exitSeconds('qwen3-235b-a22b', 'h200-sxm', s)).toBe(0);
  });

  it('prices 512 experts at a few tokens before the small-batch cap, and not after it', () => {
    const s = { batch: 8, tp: 8, blockFp8: false, uncapped: true };
    const uncapped = exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', s);
    // 486 row blocks, about 75 with tokens, (4 + 64) column blocks: about 28,000 programs over 132 SMs, 48 layers.
    expect(uncapped).toBeGreaterThan(1e-3);
    expect(uncapped).toBeLessThan(3e-3);
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', { ...s, uncapped: false })).toBe(0);
    // More tokens fill more row blocks: fewer programs return at once.
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', { ...s, batch: 64 })).toBeLessThan(
      uncapped,
    );
  });

  it('needs the engine grid and a generation with a timed cost', () => {
    const s = { batch: 8, tp: 8, blockFp8: false, uncapped: true };
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', s, 'llama.cpp')).toBe(0);
    expect(exitSeconds('qwen3-next-80b-a3b', 'b200', s)).toBe(0);
    expect(exitSeconds('qwen3-next-80b-a3b', 'mi300x', s)).toBe(0);
  });

  it("counts the H20's programs over its 78 SMs, its FP32 rate giving no SM clock", () => {
    // catalogs/gpus/h20.json: 78 SMs (its tensor rate is a firmware cap, not the SM count).
    const r = gpuRates(findGpu('h20'), defaultTimeOptions(8));
    expect(r.sms).toBe(78);
    expect(r.smClock).toBeUndefined();
    expect(gpuRates(findGpu('h200-sxm'), defaultTimeOptions(8)).smClock).toBeGreaterThan(1.5e9);
    // The same programs over 78 SMs instead of 132, less the same timed 31.8 a SM, at Hopper's cost each: more than
    // 132 / 78 of the H200's.
    const s = { batch: 8, tp: 8, blockFp8: false, uncapped: true };
    const h20 = exitSeconds('qwen3-next-80b-a3b', 'h20', s);
    const h200 = exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', s);
    expect(h20).toBeGreaterThan((132 / 78) * h200);
    expect(h20).toBeLessThan(2 * h200);
  });

  it("pads E experts in vLLM's grid and caps its rows at M x topk below BLOCK_SIZE_M tokens", () => {
    const next = modelFacts(resolveModel('qwen3-next-80b-a3b'));
    const at = (batch: number, uncapped: boolean) => ({
      batch,
      tp: 8,
      cc: 9,
      sms: 132,
      blockFp8: false,
      uncapped,
    });
    // 16 tokens, top-10 of 512: 160 + 512 x 15 = 7,840 slots, 490 row blocks (SGLang: 513 padded, 491).
    const rows = (g: typeof VLLM_FUSED_MOE_GRID) => exitPrograms(next, g, at(16, true)) / 68;
    expect(rows(SGLANG_FUSED_MOE_GRID) - rows(VLLM_FUSED_MOE_GRID)).toBeCloseTo(1, 6);
    // Below BLOCK_SIZE_M (16) tokens vLLM launches 8 x 10 row blocks: the buffer's size does not reach the grid.
    expect(exitPrograms(next, VLLM_FUSED_MOE_GRID, at(8, true))).toBe(
      exitPrograms(next, VLLM_FUSED_MOE_GRID, at(8, false)),
    );
    expect(exitPrograms(next, VLLM_FUSED_MOE_GRID, at(8, true))).toBeLessThan(80 * 68);
  });

  it('prices vLLM at 512 experts from BLOCK_SIZE_M tokens before its cap, and not after it', () => {
    const s = { batch: 16, tp: 8, blockFp8: false, uncapped: true };
    const uncapped = exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', s, 'vllm');
    // About 351 returning row blocks x 68 column blocks over 132 SMs, 48 layers, beyond the timed 31.8 per SM.
    expect(uncapped).toBeGreaterThan(1e-3);
    expect(uncapped).toBeLessThan(2e-3);
    // vllm-project/vllm#29642 (v0.13.0): 160 slots below 512 experts size the buffer 160 x 16, 160 row blocks.
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', { ...s, uncapped: false }, 'vllm')).toBe(
      0,
    );
    // Below 16 tokens the launch's own row cap holds in every build; SGLang's grid has none.
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', { ...s, batch: 8 }, 'vllm')).toBe(0);
    expect(exitSeconds('qwen3-next-80b-a3b', 'h200-sxm', { ...s, batch: 8 })).toBeGreaterThan(1e-3);
    // No cost per program on Ampere or Blackwell.
    expect(exitSeconds('qwen3-next-80b-a3b', 'a100-80gb-sxm', s, 'vllm')).toBe(0);
    expect(exitSeconds('qwen3-next-80b-a3b', 'b200', s, 'vllm')).toBe(0);
  });
});

// vLLM's TP + EP (--tensor-parallel-size N --enable-expert-parallel, no DP): vllm 0.33.0's Triton experts align the
// rank's own experts' tokens (ignore_invalid_experts) into a buffer sized for every expert, so the blocks past them
// return at once, each a whole expert wide (FusedMoeGrid.epAlignsLocal).
describe("the fused_moe grid's early-exiting programs under TP + EP", () => {
  const mm = modelFacts(resolveModel('minimax-m2'));
  const at = (batch: number, ep: number, busiest = 1): GridStep => ({
    batch,
    tp: 8,
    cc: 9,
    sms: 132,
    blockFp8: true,
    uncapped: false,
    ep,
    busiest,
  });

  it('ep 1 (or absent) is the TP grid; at 128 tokens a rank of 32 whole experts leaves more blocks to return', () => {
    const { ep: _ep, busiest: _b, ...plain } = at(128, 1);
    expect(exitPrograms(mm, VLLM_FUSED_MOE_GRID, at(128, 1))).toBe(
      exitPrograms(mm, VLLM_FUSED_MOE_GRID, plain),
    );
    // 1,024 slots + 256 x 63 padding = 268 row blocks; TP 8: about 251 experts' blocks live, (3 + 24) column blocks;
    // EP 8: about 31 of the rank's experts live, (24 + 24) column blocks each a whole expert wide.
    const tp = exitPrograms(mm, VLLM_FUSED_MOE_GRID, at(128, 1));
    const ep = exitPrograms(mm, VLLM_FUSED_MOE_GRID, at(128, 8));
    expect(tp).toBeLessThan(1000);
    expect(ep).toBeGreaterThan(230 * 48);
    expect(ep).toBeLessThan(240 * 48);
  });

  it('property: the busier the rank, the fewer of its row blocks return at once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 64, max: 512 }), fc.constantFrom(2, 4, 8), (batch, ep) => {
        const calm = exitPrograms(mm, VLLM_FUSED_MOE_GRID, at(batch, ep, 1));
        const busy = exitPrograms(mm, VLLM_FUSED_MOE_GRID, at(batch, ep, 1.3));
        expect(busy).toBeLessThanOrEqual(calm);
      }),
      { numRuns: 30 },
    );
  });

  it("prices vLLM's TP + EP step on Hopper; not SGLang's (its other ranks' blocks write zeros), nor DP attention", () => {
    const gpu = findGpu('h200-sxm');
    const t = defaultTimeOptions(8);
    const r = gpuRates(gpu, t);
    const o = (framework: Framework, extra: Partial<EstimateOptions>) => ({
      ...defaultOptions('inference'),
      weights: 'fp8' as const,
      framework,
      gpus: 8,
      tp: 8,
      batch: 128,
      seq: 2048,
      ...extra,
    });
    const vllm = decodeExitSeconds(mm, o('vllm', { ep: 8 }), t, r, false);
    // 62 MoE layers x (about 86 programs a SM - the 31.8 timed) x 223 ns: about 0.75 ms a step.
    expect(vllm).toBeGreaterThan(5e-4);
    expect(vllm).toBeLessThan(1e-3);
    expect(decodeExitSeconds(mm, o('sglang', { ep: 8 }), t, r, false)).toBe(0);
    expect(decodeExitSeconds(mm, o('vllm', { ep: 8, dpAttention: true, tp: 1 }), t, r, false)).toBe(
      0,
    );
  });
});
