// Block-scaled FP8 checkpoints (quantization_config.weight_block_size: DeepSeek-V3/R1, Qwen3 FP8) decode their
// non-expert linears through blockwise GEMMs that cost a fixed time and a time per 128 of K beyond their bytes at
// decode M (the engine's FrameworkProfile.blockFp8Linear, time/block-fp8.ts). The cost applies only to block-scaled
// checkpoints run as FP8 W8A8 on Hopper (the one generation whose kernels were timed), and it fades as the batch makes
// each GEMM compute-bound.
import { describe, expect, it } from 'vitest';
import {
  blockFp8GemmRate,
  blockFp8Gemms,
  blockFp8LinearFigures,
  blockFp8Seconds,
  isBlockScaledFp8,
  runsBlockFp8Path,
} from '../../src/core/time/block-fp8.js';
import { estimateTime } from '../../src/core/time/index.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { caseArch } from '../../src/io/load-calibration.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import type { Arch } from '../../src/core/model/arch.js';
import { DSV3_BLOCK_FP8, DSV3_PER_CHANNEL_FP8, dsv3Fp8Serving } from '../helpers/deepseek-fp8.js';

const block = DSV3_BLOCK_FP8;
// The same architecture as a per-channel FP8 checkpoint (no weight_block_size) and as an unquantized one.
const perChannel = DSV3_PER_CHANNEL_FP8;
const plain: Arch = { ...block, quant: null };

const opts = (o: Partial<EstimateOptions> = {}): EstimateOptions => dsv3Fp8Serving(o);
const h200 = gpuRates(findGpu('h200-sxm'), defaultTimeOptions(8));
const hopper = (flopRate = 2 * h200.gemm16) => ({
  w8a8: true,
  cc: 9,
  readRate: h200.mem * 0.81,
  flopRate,
});
const extra = (arch: Arch, o: Partial<EstimateOptions> = {}, w = hopper()) =>
  blockFp8Seconds(arch, opts(o), FRAMEWORKS[opts(o).framework], w);

describe('block-scaled FP8 linears at decode', () => {
  it('recognizes the block-scaled checkpoint from its quantization_config', () => {
    expect(isBlockScaledFp8(block)).toBe(true);
    expect(isBlockScaledFp8(perChannel)).toBe(false);
    expect(isBlockScaledFp8(plain)).toBe(false);
    expect(isBlockScaledFp8(resolveModel('llama-3.1-8b'))).toBe(false);
  });

  it('runs the blockwise path from cc 8.9 on NVIDIA GPUs; the GEMM figures are Hopper-only', () => {
    for (const cc of [8.9, 9, 10, 12]) expect(runsBlockFp8Path(block, opts(), cc)).toBe(true);
    // Marlin below 8.9; AMD GPUs (cc 0) run their own ROCm path.
    for (const cc of [0, 8, 8.6]) expect(runsBlockFp8Path(block, opts(), cc)).toBe(false);
    expect(runsBlockFp8Path(perChannel, opts(), 10)).toBe(false);
    expect(runsBlockFp8Path(block, opts({ weights: 'bf16' }), 10)).toBe(false);
    const fw = FRAMEWORKS.vllm;
    expect(blockFp8LinearFigures(fw, 9)).toBe(fw.blockFp8Linear?.hopper);
    for (const cc of [8.9, 10, 12]) expect(blockFp8LinearFigures(fw, cc)).toBeUndefined();
  });

  it("DeepSeek-V3's GEMMs on one TP-8 rank: fused q_a/kv_a replicated, o_proj split on K, experts and kv_b left out", () => {
    const moe = blockFp8Gemms(block, 8).filter((g) => g.count === 58);
    expect(moe).toContainEqual({ k: 7168, n: 2112, count: 58, bias: false }); // q_a + kv_a, replicated
    expect(moe).toContainEqual({ k: 1536, n: 3072, count: 58, bias: false }); // q_b, 24576 / 8
    expect(moe).toContainEqual({ k: 2048, n: 7168, count: 58, bias: false }); // o_proj, 16384 / 8
    expect(moe).toContainEqual({ k: 7168, n: 512, count: 58, bias: false }); // shared expert gate + up, 4096 / 8
    expect(moe).toContainEqual({ k: 256, n: 7168, count: 58, bias: false }); // shared expert down, 2048 / 8
    expect(moe).toHaveLength(5);
  });

  it('applies only to block-scaled checkpoints', () => {
    expect(extra(block)).toBeGreaterThan(0);
    expect(extra(perChannel)).toBe(0);
    expect(extra(plain)).toBe(0);
    // Not when the weights are not run as FP8 W8A8 (another --weights, or Marlin W8A16 without FP8 cores).
    expect(extra(block, { weights: 'int4' })).toBe(0);
    expect(extra(block, {}, { ...hopper(), w8a8: false })).toBe(0);
    // Only on Hopper, where the kernel figures were measured; an engine without a figure adds nothing.
    expect(extra(block, {}, { ...hopper(), cc: 10 })).toBe(0);
    expect(extra(block, {}, { ...hopper(), cc: 8 })).toBe(0);
    expect(extra(block, { framework: 'llama.cpp' })).toBe(0);
  });

  it('costs the fixed and per-K-block latency of each GEMM at batch 1 (SGLang: DeepGEMM, vLLM: CUTLASS)', () => {
    for (const fw of ['sglang', 'vllm'] as const) {
      const k = FRAMEWORKS[fw].blockFp8Linear!.hopper;
      // SGLang runs DeepSeek-V3's shared expert inside the routed fused MoE on Hopper (below); vLLM as linears.
      const want = blockFp8Gemms(block, 8, false, fw === 'sglang').reduce(
        (a, g) => a + g.count * (k.baseSeconds + k.perKBlockSeconds * Math.ceil(g.k / 128)),
        0,
      );
      expect(extra(block, { framework: fw })).toBeCloseTo(want, 9);
    }
    // vLLM's CUTLASS kernel is the slower of the two in the same benchmark tables.
    expect(extra(block, { framework: 'vllm' })).toBeGreaterThan(extra(block));
  });

  it("SGLang on Hopper folds DeepSeek-V3's shared expert into the routed fused MoE: not timed as linears", () => {
    // deepseek_v2.py determine_num_fused_shared_experts (sglang 0.5.6.post1, 0.5.7): DeepseekV3ForCausalLM, 256 routed
    // experts, no expert parallelism. Its two GEMMs a MoE layer, 58 x (2 x 8.0 µs + (56 + 2) x 0.14 µs), drop out.
    const k = FRAMEWORKS.sglang.blockFp8Linear!.hopper;
    const shared = 58 * (2 * k.baseSeconds + (56 + 2) * k.perKBlockSeconds);
    expect(extra(block, { ep: 1 })).toBeCloseTo(
      blockFp8Gemms(block, 8).reduce(
        (a, g) => a + g.count * (k.baseSeconds + k.perKBlockSeconds * Math.ceil(g.k / 128)),
        0,
      ) - shared,
      9,
    );
    // Under expert parallelism (0.5.7 refuses the fusion on CUDA) and for other routed-expert counts (Kimi K2's 384
    // under the same architecture) the shared expert stays two linears; vLLM never folds it.
    const kimiLike: Arch = {
      ...block,
      groups: block.groups.map((g) => (g.experts > 1 ? { ...g, experts: 384 } : g)),
    };
    expect(extra(block, { ep: 8 }) - extra(block)).toBeCloseTo(shared, 9);
    // A DP-attention rank's dense part (time/expert-parallel.ts denseFacts: no routed experts) keeps it too.
    const rank = blockFp8Seconds(block, opts(), FRAMEWORKS.sglang, { ...hopper(), experts: 1 });
    expect(rank - extra(block)).toBeCloseTo(shared, 9);
    expect(extra(kimiLike) - extra(block)).toBeCloseTo(shared, 9);
    const v = FRAMEWORKS.vllm.blockFp8Linear!.hopper;
    expect(v.sharedExpertsFused).toBeUndefined();
  });

  it('fades with the batch as the GEMMs become compute-bound', () => {
    const batches = [1, 8, 32, 64, 128, 256, 512, 1024, 4096, 16384];
    const e = batches.map((batch) => extra(block, { batch }));
    for (let i = 1; i < e.length; i++) expect(e[i]!).toBeLessThanOrEqual(e[i - 1]!);
    // Flat while the FLOPs stay under the bytes (the kernel tables are flat to M = 64-128) ...
    expect(e[batches.indexOf(32)]).toBe(e[0]);
    // ... then shrinking, and gone once every GEMM's FLOPs outlast its kernel time.
    expect(e[batches.indexOf(1024)]!).toBeLessThan(e[0]! / 2);
    expect(e.at(-1)).toBe(0);
  });

  it('a decode step of the block-scaled checkpoint takes longer than the per-channel one, by the kernels at small batch', () => {
    const step = (arch: Arch, batch: number) =>
      estimateTime(arch, opts({ batch }), findGpu('h200-sxm'), defaultTimeOptions(8)).stepSeconds;
    const add = extra(block);
    expect(step(block, 1) - step(perChannel, 1)).toBeGreaterThan(add * 0.9);
    expect(step(block, 1) - step(perChannel, 1)).toBeLessThan(add * 1.1);
    // On Ampere FP8 runs through Marlin (no FP8 cores): no block kernel.
    const a100 = (arch: Arch) =>
      estimateTime(arch, opts(), findGpu('a100-80gb-sxm'), defaultTimeOptions(8)).stepSeconds;
    expect(a100(block)).toBe(a100(perChannel));
  });
});

describe('block-scaled FP8 GEMMs at prefill M on Hopper', () => {
  const w8a8 = 2 * h200.gemm16;
  const rate = (arch: Arch, o: Partial<EstimateOptions> = {}, w = { q: 'cutlass', ...h200 }) =>
    blockFp8GemmRate(arch, opts(o), FRAMEWORKS[opts(o).framework], w, w8a8);

  it("caps the W8A8 rate at the engine kernel's share of the 8-bit peak", () => {
    for (const fw of ['vllm', 'sglang'] as const) {
      const share = FRAMEWORKS[fw].blockFp8Linear!.hopper.peakShare8!;
      expect(rate(block, { framework: fw })).toBeCloseTo(
        Math.min(w8a8, share * 2 * h200.peak16),
        0,
      );
    }
    // vLLM's CUTLASS kernel below SGLang's DeepGEMM, and both below the W8A8 rate.
    expect(rate(block, { framework: 'vllm' })).toBeLessThan(rate(block));
    expect(rate(block)).toBeLessThan(w8a8);
  });

  it('leaves per-channel checkpoints, other kernels and other GPUs at the given rate', () => {
    expect(rate(perChannel)).toBe(w8a8);
    expect(rate(plain)).toBe(w8a8);
    expect(rate(block, {}, { q: 'marlin', ...h200 })).toBe(w8a8);
    expect(rate(block, {}, { ...h200, q: 'cutlass', cc: 10 })).toBe(w8a8);
    expect(rate(block, { weights: 'bf16' })).toBe(w8a8);
  });

  it("a block-scaled checkpoint's prefill takes longer than the per-channel one's on Hopper", () => {
    const ttft = (arch: Arch, framework: 'vllm' | 'sglang') =>
      estimateTime(
        arch,
        opts({ framework, seq: 8192, promptTokens: 8000 }),
        findGpu('h200-sxm'),
        defaultTimeOptions(8),
      ).ttftSeconds!;
    for (const fw of ['vllm', 'sglang'] as const)
      expect(ttft(block, fw)).toBeGreaterThan(ttft(perChannel, fw) * 1.05);
    expect(ttft(block, 'vllm')).toBeGreaterThan(ttft(block, 'sglang'));
  });
});

describe("SGLang's routed experts at prefill M on Hopper: the Triton fused MoE, not DeepGEMM", () => {
  // SGLang's default MoE runner for a block-FP8 checkpoint on SM90 is the Triton fused_moe unless a DeepEP-style
  // all-to-all backend is set (fp8.py create_moe_runner, sglang==0.5.23); its linears run DeepGEMM. The experts' ceiling
  // is the Triton blockwise kernel's share of the 8-bit peak (vllm-project/vllm#23280: 406.5 of 1978.9 TFLOPS).
  const w8a8 = 2 * h200.gemm16;
  const rate = (
    fw: 'vllm' | 'sglang',
    part: 'linears' | 'experts',
    o: Partial<EstimateOptions> = {},
  ) =>
    blockFp8GemmRate(
      block,
      opts({ framework: fw, ...o }),
      FRAMEWORKS[fw],
      { q: 'cutlass', ...h200 },
      w8a8,
      part,
    );

  it("caps SGLang's routed experts at the Triton kernel's share, its linears at DeepGEMM's", () => {
    const h = FRAMEWORKS.sglang.blockFp8Linear!.hopper;
    expect(h.moePeakShare8).toBeCloseTo(0.2054, 4);
    expect(rate('sglang', 'experts')).toBeCloseTo(h.moePeakShare8! * 2 * h200.peak16, 0);
    expect(rate('sglang', 'linears')).toBeCloseTo(
      Math.min(w8a8, h.peakShare8! * 2 * h200.peak16),
      0,
    );
    expect(rate('sglang', 'experts')).toBeLessThan(0.5 * rate('sglang', 'linears'));
  });

  it('keeps the Triton runner under expert parallelism and DP attention (no all-to-all backend in the launch)', () => {
    expect(rate('sglang', 'experts', { ep: 8 })).toBe(rate('sglang', 'experts'));
    expect(rate('sglang', 'experts', { dpAttention: true, ep: 8 })).toBe(rate('sglang', 'experts'));
  });

  it("leaves vLLM's experts at its one blockwise share and per-channel checkpoints at the W8A8 rate", () => {
    expect(FRAMEWORKS.vllm.blockFp8Linear!.hopper.moePeakShare8).toBeUndefined();
    expect(rate('vllm', 'experts')).toBe(rate('vllm', 'linears'));
    expect(
      blockFp8GemmRate(
        perChannel,
        opts(),
        FRAMEWORKS.sglang,
        { q: 'cutlass', ...h200 },
        w8a8,
        'experts',
      ),
    ).toBe(w8a8);
  });
});

describe('block-scaled FP8 GEMMs at prefill M under Triton on Ada', () => {
  // Compute capability 8.9 runs no blockwise CUTLASS or DeepGEMM kernel: both engines' routed experts run the Triton
  // fused MoE, timed on one L40S at vLLM's default config (vllm-project/vllm#53710); the linears keep the W8A8 rate.
  const l40s = gpuRates(findGpu('l40s'), defaultTimeOptions(1));
  const w8a8 = 2 * l40s.gemm16;
  const qwenMoe = caseArch({
    config_file: 'configs/Qwen__Qwen3-Coder-30B-A3B-Instruct-FP8.json',
    model_hf_id: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8',
  });
  const perChannelMoe: Arch = {
    ...qwenMoe,
    quant: qwenMoe.quant && { ...qwenMoe.quant, groupSize: null },
  };
  const one = (o: Partial<EstimateOptions> = {}) => opts({ gpus: 1, tp: 1, ...o });
  const rate = (
    arch: Arch,
    o: Partial<EstimateOptions> = {},
    part: 'linears' | 'experts' = 'experts',
  ) =>
    blockFp8GemmRate(
      arch,
      one(o),
      FRAMEWORKS[one(o).framework],
      { q: 'cutlass', ...l40s },
      w8a8,
      part,
    );

  it("caps both engines' routed experts at the Triton fused MoE's share of the L40S's 8-bit peak", () => {
    expect(isBlockScaledFp8(qwenMoe)).toBe(true);
    for (const fw of ['vllm', 'sglang'] as const) {
      const share = FRAMEWORKS[fw].blockFp8Linear!.ada!.moePeakShare8;
      // 193.5 TFLOP/s of the 733 TFLOPS dense 8-bit peak (M = 8192, default config, vllm-project/vllm#53710).
      expect(share).toBeCloseTo(0.264, 3);
      expect(rate(qwenMoe, { framework: fw })).toBeCloseTo(share * 2 * l40s.peak16, 0);
      // The linears (Triton's blockwise matmul, untimed on Ada) keep the W8A8 rate.
      expect(rate(qwenMoe, { framework: fw }, 'linears')).toBe(w8a8);
    }
    expect(rate(qwenMoe) / 1e12).toBeGreaterThan(185);
    expect(rate(qwenMoe) / 1e12).toBeLessThan(200);
    expect(rate(qwenMoe)).toBeLessThan(0.5 * w8a8);
  });

  it('leaves per-channel checkpoints, BF16 weights and Hopper at their own rates', () => {
    expect(rate(perChannelMoe)).toBe(w8a8);
    expect(rate(qwenMoe, { weights: 'bf16' })).toBe(w8a8);
    const hopper = blockFp8GemmRate(
      qwenMoe,
      one(),
      FRAMEWORKS.sglang,
      { q: 'cutlass', ...h200 },
      2 * h200.gemm16,
      'experts',
    );
    expect(hopper).toBeCloseTo(
      Math.min(
        2 * h200.gemm16,
        FRAMEWORKS.sglang.blockFp8Linear!.hopper.moePeakShare8! * 2 * h200.peak16,
      ),
      0,
    );
  });

  it("a block-scaled MoE checkpoint's prefill takes longer than the per-channel one's on an L40S", () => {
    const ttft = (arch: Arch, framework: 'vllm' | 'sglang') =>
      estimateTime(
        arch,
        one({ framework, seq: 4096, promptTokens: 4000 }),
        findGpu('l40s'),
        defaultTimeOptions(1),
      ).ttftSeconds!;
    for (const fw of ['vllm', 'sglang'] as const)
      expect(ttft(qwenMoe, fw)).toBeGreaterThan(ttft(perChannelMoe, fw) * 1.3);
  });
});

describe('block-scaled FP8 GEMMs at prefill M under Triton on gfx942', () => {
  const mi300x = gpuRates(findGpu('mi300x'), defaultTimeOptions(8));
  const mi355x = gpuRates(findGpu('mi355x'), defaultTimeOptions(8));
  // hipBLASLt's FP8 rate on AMD GPUs (time/hardware.ts gemm8), what the prefill took before the ceiling.
  const w8a8 = mi300x.gemm8!;
  const rate = (
    arch: Arch,
    o: Partial<EstimateOptions> = {},
    w: { q: string; cc: number; peak16: number; gfx?: string; aiter?: boolean } = {
      q: 'cutlass',
      cc: 0,
      peak16: mi300x.peak16,
      gfx: mi300x.gfx,
    },
  ) => blockFp8GemmRate(arch, opts({ framework: 'vllm', ...o }), FRAMEWORKS.vllm, w, w8a8);

  it("caps vLLM's W8A8 prefill rate at the Triton blockwise kernel's share of the 8-bit peak, at default tiles", () => {
    const rp = FRAMEWORKS.vllm.blockFp8Linear!.rocmPrefill!;
    expect(rate(block)).toBeCloseTo(rp.peakShare8 * rp.defaultTileShare! * 2 * mi300x.peak16, 0);
    // Primus-Turbo's 628 TFLOPS on an MI300X (AMD-AGI/Primus-Turbo#339) times vLLM's default-tile share of a tuned
    // run (305.14 / 402.98, vllm-project/vllm#23939 and vllm-project/vllm#23280): about 475 of hipBLASLt's 907.
    expect(rp.defaultTileShare).toBeCloseTo(0.757, 3);
    expect(rate(block) / 1e12).toBeGreaterThan(470);
    expect(rate(block) / 1e12).toBeLessThan(480);
    expect(rate(block)).toBeLessThan(0.55 * w8a8);
  });

  it('leaves AITER runs, per-channel checkpoints and gfx950 at the given rate', () => {
    const gfx942 = { q: 'cutlass', cc: 0, peak16: mi300x.peak16, gfx: mi300x.gfx };
    expect(rate(block, {}, { ...gfx942, aiter: true })).toBe(w8a8);
    expect(rate(perChannel)).toBe(w8a8);
    expect(rate(plain)).toBe(w8a8);
    expect(rate(block, { weights: 'bf16' })).toBe(w8a8);
    expect(rate(block, {}, { ...gfx942, peak16: mi355x.peak16, gfx: mi355x.gfx })).toBe(w8a8);
  });

  it("caps SGLang's AITER linears on gfx942 (AITER's Triton blockscale GEMM), not its AITER fused MoE", () => {
    // sglang==0.5.13.post1 aiter_w8a8_block_fp8_linear: use_triton = True off gfx950; 0.5.7 imports only the Triton one.
    const gfx942 = { q: 'cutlass', cc: 0, peak16: mi300x.peak16, gfx: mi300x.gfx };
    const sg = (
      part: 'linears' | 'experts',
      w: { q: string; cc: number; peak16: number; gfx?: string; aiter?: boolean } = gfx942,
      arch: Arch = block,
    ) => blockFp8GemmRate(arch, opts(), FRAMEWORKS.sglang, w, w8a8, part);
    const ceiling = (627.96 / 2614.9) * 2 * mi300x.peak16; // AMD-AGI/Primus-Turbo#339 on an MI300X
    expect(sg('linears')).toBeCloseTo(ceiling, 0);
    expect(sg('linears') / 1e12).toBeGreaterThan(620);
    expect(sg('linears') / 1e12).toBeLessThan(635);
    expect(sg('linears', { ...gfx942, aiter: true })).toBeCloseTo(ceiling, 0);
    expect(sg('experts')).toBe(w8a8);
    expect(sg('experts', { ...gfx942, aiter: true })).toBe(w8a8);
    // AITER off: SGLang's own Triton w8a8_block_fp8_matmul and Triton fused_moe, both held to the ceiling.
    expect(sg('experts', { ...gfx942, aiter: false })).toBeCloseTo(ceiling, 0);
    expect(sg('linears', gfx942, perChannel)).toBe(w8a8);
    expect(sg('linears', { ...gfx942, peak16: mi355x.peak16, gfx: mi355x.gfx })).toBe(w8a8);
  });

  it("lengthens a vLLM block-FP8 prefill on an MI300X unless the run switches AITER's kernels on", () => {
    const ttft = (arch: Arch, rocmAiter: boolean) =>
      estimateTime(
        arch,
        opts({ framework: 'vllm', seq: 8192, promptTokens: 8000 }),
        findGpu('mi300x'),
        { ...defaultTimeOptions(8), rocmAiter },
      ).ttftSeconds!;
    expect(ttft(block, false)).toBeGreaterThan(ttft(block, true) * 1.05);
    expect(ttft(perChannel, false)).toBeCloseTo(ttft(perChannel, true), 6);
  });
});

describe("MiniMax-M2's FP8 checkpoint in the calibration configs", () => {
  // The checkpoint stores q/k/v/o and the experts' w1/w2/w3 as float8_e4m3fn with a weight_scale_inv per 128x128
  // block (examples/minimax_m2_misc/SUMMARY.md at whn09/neuronx-distributed-inference@e205de97, a checkpoint analysis).
  const minimax = caseArch({
    config_file: 'configs/MiniMaxAI__MiniMax-M2.json',
    model_hf_id: 'MiniMaxAI/MiniMax-M2',
  });

  it("reads as block-scaled FP8, so SGLang's blockwise linears on gfx942 are timed", () => {
    expect(isBlockScaledFp8(minimax)).toBe(true);
    const sglang = opts({ framework: 'sglang', gpus: 2, tp: 2, ep: 2 });
    const mi300x = gpuRates(findGpu('mi300x'), defaultTimeOptions(8));
    const w = { w8a8: true, cc: 0, gfx: mi300x.gfx, readRate: mi300x.mem, flopRate: mi300x.gemm8! };
    expect(blockFp8Seconds(minimax, sglang, FRAMEWORKS.sglang, w)).toBeGreaterThan(1e-3);
  });

  it('the catalog model (what --model minimax-m2 reads) carries the same quantization as the checkpoint', () => {
    const catalog = resolveModel('minimax-m2');
    expect(isBlockScaledFp8(catalog)).toBe(true);
    expect(catalog.quant).toEqual(minimax.quant);
    expect(catalog.quant?.method).toBe('fp8');
  });
});

describe("a W8A8 prefill's attention", () => {
  it('runs at the 16-bit rate beside a 16-bit cache, the 8-bit one with an fp8 cache', () => {
    const llama = resolveModel('llama-3.1-8b');
    const ttft = (weights: 'fp8' | 'bf16', kvCacheDtype: 'auto' | 'fp8') =>
      estimateTime(
        llama,
        {
          ...opts({ framework: 'vllm', weights, gpus: 1, tp: 1, seq: 32768, promptTokens: 32000 }),
          kvCacheDtype,
        },
        findGpu('h100-sxm'),
        defaultTimeOptions(1),
      ).ttftSeconds!;
    // At 32K the attention is about a third of the prefill's FLOPs: at half the linears' rate it adds a sixth.
    expect(ttft('fp8', 'auto')).toBeGreaterThan(ttft('fp8', 'fp8') * 1.1);
    expect(ttft('fp8', 'auto')).toBeLessThan(ttft('bf16', 'auto'));
  });
});
