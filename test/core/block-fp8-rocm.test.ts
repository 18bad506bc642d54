// Block-scaled FP8 linears at decode on ROCm: SGLang runs AITER's gemm_a8w8_blockscale on gfx942 (MI300X/MI325X), whose
// time at decode M is a fixed cost and a cost per 128 of K far beyond the weight bytes (the engine's
// FrameworkProfile.blockFp8Linear.rocm, from SemiAnalysisAI/InferenceX#863's MI325X profile), and runs
// DeepSeek-V3/R1's shared expert inside the fused MoE there (deepseek_v2.py determine_num_fused_shared_experts).
import { describe, expect, it } from 'vitest';
import {
  absorbDequantSeconds,
  blockFp8Gemms,
  blockFp8Seconds,
} from '../../src/core/time/block-fp8.js';
import { estimateTime } from '../../src/core/time/index.js';
import { rocmLibraryGemmSeconds } from '../../src/core/time/rocm-gemm.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { Arch } from '../../src/core/model/arch.js';
import { DSV3_BLOCK_FP8, DSV3_PER_CHANNEL_FP8, dsv3Fp8Serving } from '../helpers/deepseek-fp8.js';

const block = DSV3_BLOCK_FP8;
const perChannel = DSV3_PER_CHANNEL_FP8;

const opts = (o: Partial<EstimateOptions> = {}): EstimateOptions => dsv3Fp8Serving(o);
const mi300x = gpuRates(findGpu('mi300x'), defaultTimeOptions(8));
const rocm = (gfx = 'gfx942') => ({
  w8a8: true,
  cc: 0,
  gfx,
  readRate: mi300x.mem * 0.69,
  flopRate: mi300x.gemm8 ?? 2 * mi300x.gemm16,
});
const extra = (arch: Arch, o: Partial<EstimateOptions> = {}, w = rocm()) =>
  blockFp8Seconds(arch, opts(o), FRAMEWORKS[opts(o).framework], w);

const GAP = 3e-6;
const dequant = (o: Partial<EstimateOptions> = {}, gfx = 'gfx942', arch: Arch = block) =>
  absorbDequantSeconds(arch, opts(o), FRAMEWORKS[opts(o).framework], {
    w8a8: true,
    gfx,
    mem: mi300x.mem,
    gap: GAP,
  });

describe('block-scaled FP8 linears at decode on ROCm (SGLang, AITER on gfx942)', () => {
  it('leaves out the shared expert, which runs inside the fused MoE on gfx942', () => {
    const moe = blockFp8Gemms(block, 8, false, true).filter((g) => g.count === 58);
    expect(moe).toEqual([
      { k: 7168, n: 2112, count: 58, bias: false }, // q_a + kv_a, replicated
      { k: 1536, n: 3072, count: 58, bias: false }, // q_b
      { k: 2048, n: 7168, count: 58, bias: false }, // o_proj
    ]);
    // The first three layers' dense MLP is no shared expert: it stays.
    const dense = blockFp8Gemms(block, 8, false, true).filter((g) => g.count === 3);
    expect(dense).toHaveLength(5);
  });

  it('costs the fit per GEMM on one TP-8 rank at batch 1: 58 x (3 x 7.8 + 84 x 1.41) + 3 x (5 x 7.8 + 158 x 1.41) µs', () => {
    // MoE layers: K blocks 56 (q_a/kv_a) + 12 (q_b) + 16 (o_proj); dense layers add gate_up 56 and down 2304 / 128 = 18.
    expect(extra(block)).toBeCloseTo(9.012e-3, 6);
  });

  it('DP attention runs attention over TP 1: o_proj walks all 16384 of K', () => {
    const tp1 = blockFp8Gemms(block, 1, false, true).filter((g) => g.count === 58);
    expect(tp1).toContainEqual({ k: 16384, n: 7168, count: 58, bias: false });
    // 58 x (3 x 7.8 + (56 + 12 + 128) x 1.41) + 3 x (5 x 7.8 + (56 + 56 + 12 + 128 + 144) x 1.41) µs = 19.18 ms.
    expect(extra(block, { tp: 1 })).toBeCloseTo(19.178e-3, 6);
  });

  it('applies only to block-scaled FP8 on the gfx targets the engine has a figure for', () => {
    expect(extra(perChannel)).toBe(0);
    expect(extra(block, { weights: 'bf16' })).toBe(0);
    expect(extra(block, {}, rocm('gfx950'))).toBe(0); // MI355X: not measured
    const { gfx: _gfx, ...noTarget } = rocm(); // a card without a gfx target
    expect(blockFp8Seconds(block, opts(), FRAMEWORKS.sglang, noTarget)).toBe(0);
    expect(extra(block, { framework: 'vllm' })).toBe(0); // vLLM: no ROCm figure
  });

  it("an MI300X decode step of the block-scaled checkpoint takes the kernels' extra over the per-channel one", () => {
    const step = (arch: Arch, gpu: string, rocmAiter?: boolean) =>
      estimateTime(arch, opts(), findGpu(gpu), {
        ...defaultTimeOptions(8),
        ...(rocmAiter === undefined ? {} : { rocmAiter }),
      }).stepSeconds;
    // The per-channel checkpoint's linears are hipBLASLt calls instead (engines/sglang/rocm-gemm.ts).
    const library = (gpu: string) =>
      rocmLibraryGemmSeconds(
        perChannel,
        opts(),
        FRAMEWORKS.sglang,
        gpuRates(findGpu(gpu), defaultTimeOptions(8)),
        1,
        0.69,
      );
    expect(library('mi300x')).toBeGreaterThan(0);
    const d = step(block, 'mi300x') - step(perChannel, 'mi300x');
    // The block-scaled experts run AITER's fused MoE, whose K loop outlasts the Triton call figure the per-channel
    // checkpoint keeps at one token (time/aiter-moe.ts; test/core/aiter-moe.test.ts): the step without AITER less.
    const moe = step(block, 'mi300x') - step(block, 'mi300x', false);
    expect(moe).toBeGreaterThan(0);
    const more = extra(block) + dequant() - library('mi300x') + moe;
    expect(d).toBeGreaterThan(more * 0.9);
    expect(d).toBeLessThan(more * 1.1);
    // MI355X (gfx950) keeps no block-scaled figure.
    expect(step(block, 'mi355x')).toBeCloseTo(step(perChannel, 'mi355x') - library('mi355x'), 6);
  });

  it("widens MLA's kv_b to BF16 in every step: 8 more bytes a weight and 4 kernels a layer", () => {
    // kv_b: 512 x 128 x (128 + 128) weights over the attention TP, 61 MLA layers.
    const perLayer = (tp: number) => ((512 * 128 * 256) / tp) * 8;
    expect(dequant()).toBeCloseTo(61 * (perLayer(8) / mi300x.mem + 4 * GAP), 9);
    // A DP-attention rank at attention TP 1 widens all 128 heads': eight times the bytes.
    expect(dequant({ tp: 1 })).toBeCloseTo(61 * (perLayer(1) / mi300x.mem + 4 * GAP), 9);
    expect(dequant({}, 'gfx950')).toBe(0); // gfx950 runs the fused FP8 bmm, no figure here
    expect(dequant({}, 'gfx942', perChannel)).toBe(0);
    expect(dequant({ weights: 'bf16' })).toBe(0);
    expect(dequant({ framework: 'vllm' })).toBe(0);
  });
});
