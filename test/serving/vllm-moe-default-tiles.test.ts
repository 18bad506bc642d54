// vLLM's data for the default fused_moe tiles (engines/vllm/moe-tiles.ts; priced by time/moe-default-tiles.ts, whose
// own tests are test/core/moe-default-tiles.test.ts): its block-FP8 routed experts on the Triton fused_moe take a tuned
// config file where the release ships one for the layer's (E, N, card), else get_default_config's tiles. The file
// listing is read from the PyPI wheels (engines/vllm/fused-moe-configs.ts), the kernel choice from each release's
// Fp8MoEMethod, and the default tiles' slowdown by tokens from vllm-project/vllm#44830 and vllm-project/vllm#45142.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { VLLM_BLOCK_FP8_MOE_CONFIGS } from '../../src/core/engines/vllm/fused-moe-configs.js';
import { VLLM_FUSED_MOE_DEFAULT_TILES } from '../../src/core/engines/vllm/moe-tiles.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { estimateTime } from '../../src/core/time/index.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import type { ThroughputCase } from '../../src/schema/calibration.js';

const TILES = VLLM_FUSED_MOE_DEFAULT_TILES.blockFp8!;
// A call of 256 tokens unless a test names another (vLLM 0.11.0's DeepGEMM takes 128 tokens or more).
const triton = (version: string | undefined, cc: number, tokens = 256) =>
  TILES.triton!(version, cc, tokens);

const row = (id: string) => {
  const c = loadThroughputCases('throughput.json').find((x) => x.id === id);
  if (c === undefined) throw new Error(`no row ${id}`);
  return c;
};
// vllm-project/vllm#19455: Qwen3-30B-A3B-FP8 (E=128, N=768) on one B200, vLLM main of 2025-06-11, before and after
// the PR's B200 file.
const VLLM19455_DEFAULT = 'vllm19455-qwen3-30b-a3b-fp8-b200-sharegpt-n2000-c200-default';
const VLLM19455_TUNED = 'vllm19455-qwen3-30b-a3b-fp8-b200-sharegpt-n2000-c200-tuned';
// lukaLLM/vLLM_vs_SGLang_benchmarks: Qwen3-Coder-30B-A3B-Instruct-FP8 (E=128, N=768) on one L40S, vLLM v0.10.2.
const LUKALLM_VLLM_ROW = 'lukallm-qwen3coder30b-fp8-l40s-vllm-sharegpt-burst1000';
// GPUStack Performance Lab: Qwen3-235B-A22B-Instruct-2507-FP8 over TP 4 on H100 (E=128, N=384, no H100 block-FP8 file
// in the 0.11.0 wheel), vLLM v0.11.0, 500 prompts of 2K.
const GPSLAB_Q235_FP8_H100_ROW = 'gpslab-qwen3-235b-fp8-4xh100-vllm-burst500-i2k';

/** The row's decode step at `batch` in flight. */
const tpot = (c: ThroughputCase, batch: number) => {
  const { options, time, gpu, arch, facts } = caseInputs(c);
  return estimateTime(arch, { ...options, batch }, gpu, time, facts.pool).tpotSeconds ?? 0;
};

describe("vLLM's block-FP8 fused_moe config files by release", () => {
  it('lists the B200 file of vllm-project/vllm#19455 in 0.9.2 and later, not in 0.9.1', () => {
    const key = '128,768,NVIDIA_B200';
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.9.1']).not.toContain(key);
    for (const v of ['0.9.2', '0.10.0', '0.11.0'])
      expect(VLLM_BLOCK_FP8_MOE_CONFIGS[v]).toContain(key);
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.11.0']).toHaveLength(41); // the wheel's fp8_w8a8 block files
    expect(TILES.tuned('0.9.1+main-2025-06-11', 128, 768, 'b200')).toBe(false);
    expect(TILES.tuned('0.9.2', 128, 768, 'b200')).toBe(true);
  });

  it("lists the 0.10.2 wheel's 41 files, the same as 0.11.0's, with no L40S file", () => {
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.10.2']).toHaveLength(41);
    expect([...VLLM_BLOCK_FP8_MOE_CONFIGS['0.10.2']!]).toEqual([
      ...VLLM_BLOCK_FP8_MOE_CONFIGS['0.11.0']!,
    ]);
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.10.2']).toContain('20,2560,NVIDIA_H100'); // not in 0.10.0's 22
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.10.0']).not.toContain('20,2560,NVIDIA_H100');
    expect(TILES.tuned('0.10.2', 128, 768, 'l40s')).toBe(false);
    expect(TILES.tuned('0.10.2', 128, 768, 'h200-sxm')).toBe(true);
  });

  it('looks up only releases it lists exactly and cards whose torch name it knows', () => {
    expect(TILES.tuned('0.11 line (early November 2025)', 256, 384, 'h100-sxm')).toBeUndefined();
    expect(TILES.tuned('0.17.0', 128, 768, 'b200')).toBeUndefined();
    expect(TILES.tuned('0.11.0', 128, 768, 'rtx-4090')).toBeUndefined();
    expect(TILES.tuned('0.11.0', 128, 192, 'h100-sxm')).toBe(false);
  });

  it("takes the Triton kernel where each release's Fp8MoEMethod does", () => {
    expect(triton('0.9.1', 10)).toBe(true); // no CUTLASS block-scaled MoE yet
    expect(triton('0.10.0', 10)).toBe(false); // CutlassBlockScaledGroupedGemm on SM100
    expect(triton('0.10.0', 9)).toBe(true); // VLLM_USE_DEEP_GEMM defaults to 0
    expect(triton('0.11.0', 9)).toBeUndefined(); // DeepGEMM on by default, where installed
    expect(triton('0.11.0', 9, 96)).toBe(true); // below DeepGEMM's 128-token alignment: Triton
    expect(triton('0.11.0', 10, 96)).toBeUndefined(); // SM100: E8M0 scales send every call to DeepGEMM
    expect(triton('0.11.0', 8.9)).toBe(true); // Ada: no DeepGEMM
    expect(triton('0.11.0', 8)).toBe(false); // Marlin below 8.9
    expect(triton('0.10.2', 10)).toBe(false); // CutlassBlockScaledGroupedGemm on SM100
    expect(triton('0.10.2', 9)).toBe(true); // VLLM_USE_DEEP_GEMM still defaults to 0
    expect(triton('0.10.2', 8.9)).toBe(true);
  });
});

describe("vLLM 0.11.0's DeepGEMM guard on Hopper", () => {
  it('runs a call below 128 tokens on Triton, and leaves 128 or more to DeepGEMM where installed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20000 }), (tokens) => {
        expect(triton('0.11.0', 9, tokens)).toBe(tokens < 128 ? true : undefined);
        // Releases before 0.11.0 keep DeepGEMM off by default: Triton at every size on Hopper and Ada.
        expect(triton('0.10.2', 9, tokens)).toBe(true);
        expect(triton('0.11.0', 8.9, tokens)).toBe(true);
      }),
    );
  });
});

describe("the default tiles' slowdown by tokens", () => {
  it('is none at a few tokens and at a prefill chunk, 1.25x at 96-512 (vllm-project/vllm#44830)', () => {
    for (const m of [1, 8, 64, 1024, 8192]) expect(TILES.slowdown(m, 128)).toBe(1);
    for (const m of [96, 200, 512]) expect(TILES.slowdown(m, 128)).toBe(1.25);
    expect(TILES.slowdown(80, 128)).toBeCloseTo(1.125, 12);
  });

  it('stays within 1 and 1.25, rising to 96 tokens and falling from 512', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20000 }),
        fc.integer({ min: 1, max: 20000 }),
        (a, b) => {
          const [lo, hi] = a < b ? [a, b] : [b, a];
          const f = TILES.slowdown(lo, 128);
          expect(f).toBeGreaterThanOrEqual(1);
          expect(f).toBeLessThanOrEqual(1.25);
          if (hi <= 96) expect(TILES.slowdown(hi, 128)).toBeGreaterThanOrEqual(f);
          if (lo >= 512) expect(TILES.slowdown(hi, 128)).toBeLessThanOrEqual(f);
        },
      ),
    );
  });
});

describe("a vLLM run's block-FP8 experts on the default tiles", () => {
  it('slows the vllm-project/vllm#19455 build without the file at 200 in flight, and not the one with it', () => {
    const before = row(VLLM19455_DEFAULT);
    const after = row(VLLM19455_TUNED);
    expect(after.fused_moe_config).toBe('tuned');
    expect(tpot(before, 200)).toBeGreaterThan(tpot(after, 200) * 1.02);
    // A row of unknown release, or of 0.10.0 (CUTLASS on SM100), keeps the tuned price.
    expect(tpot({ ...before, engine_version: undefined }, 200)).toBe(tpot(after, 200));
    expect(tpot({ ...before, engine_version: '0.10.0' }, 200)).toBe(tpot(after, 200));
    // At 32 in flight the default tiles cost what a tuned file's do.
    expect(tpot(before, 32)).toBe(tpot(after, 32));
  });

  it('slows the lukaLLM vLLM v0.10.2 L40S burst of Qwen3-Coder-30B-A3B-FP8, whose release has no L40S file', () => {
    const c = row(LUKALLM_VLLM_ROW);
    expect(c.engine_version).toBe('0.10.2'); // image vllm/vllm-openai:v0.10.2 in the source's docker-compose
    expect(tpot(c, 140)).toBeGreaterThan(tpot({ ...c, engine_version: undefined }, 140) * 1.02);
    expect(tpot(c, 32)).toBe(tpot({ ...c, engine_version: undefined }, 32));
  });

  it("slows a v0.11.0 Hopper step below DeepGEMM's 128 tokens on an untuned shape, and not one of 128 or more", () => {
    const c = row(GPSLAB_Q235_FP8_H100_ROW);
    expect(c.engine_version).toBe('0.11.0');
    expect(TILES.tuned('0.11.0', 128, 384, 'h100-sxm')).toBe(false);
    const unknown = { ...c, engine_version: undefined };
    expect(tpot(c, 96)).toBeGreaterThan(tpot(unknown, 96) * 1.02);
    expect(tpot(c, 256)).toBe(tpot(unknown, 256));
  });
});

describe("vLLM's profile", () => {
  it('lists block-FP8 default tiles only, looked up per rank under expert parallelism', () => {
    expect(FRAMEWORKS.vllm.fusedMoeTile16?.defaults).toBe(VLLM_FUSED_MOE_DEFAULT_TILES);
    expect(Object.keys(VLLM_FUSED_MOE_DEFAULT_TILES)).toEqual(['blockFp8']);
    expect(TILES.localUnderEp).toBe(true);
  });

  it('knows no file or kernel without a release', () => {
    expect(TILES.tuned(undefined, 128, 768, 'b200')).toBeUndefined();
    expect(triton(undefined, 9)).toBeUndefined();
    expect(triton(undefined, 9, 96)).toBeUndefined();
  });
});
