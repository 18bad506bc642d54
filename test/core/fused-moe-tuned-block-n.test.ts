// Where the engine ships a tuned fused_moe config file for the step's experts, its Triton fused_moe launches
// cdiv(EM, BLOCK_SIZE_M) x cdiv(N, BLOCK_SIZE_N) programs a GEMM at that file's tiles for the step's M-bucket
// (`invoke_fused_moe_kernel`), not at the default tiles': the early-exiting programs past the routed rows (time/moe-grid.ts)
// span the file's columns. The files' BLOCK_SIZE_N is kept as read in the engines' wheels
// (engines/sglang/fused-moe-block-n.ts, engines/vllm/fused-moe-configs.ts VLLM_BLOCK_FP8_BLOCK_N).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sglangTunedTile } from '../../src/core/engines/sglang/fused-moe-configs.js';
import {
  sglangBlockNOf,
  sglangDownFileShipped,
} from '../../src/core/engines/sglang/fused-moe-block-n.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import type { ModelFacts } from '../../src/core/time/model-facts.js';
import { tunedTile } from '../../src/core/time/moe-default-tiles.js';
import {
  decodeExitSeconds,
  exitPrograms,
  fusedMoeExitSeconds,
} from '../../src/core/time/moe-grid.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { QWEN3_NEXT as NEXT, QWEN3_NEXT_SGLANG_TP8 as NEXT_SGLANG } from '../helpers/qwen3-next.js';

describe("a tuned file's BLOCK_SIZE_N by M-bucket", () => {
  it("reads SGLang's H200 Qwen3-Next files as each wheel ships them", () => {
    // sglang==0.5.23 triton_3_4_0/E=512,N=64,device_name=NVIDIA_H200.json: BLOCK_SIZE_N 64 at 1 and 2 tokens, 128 at 4.
    expect([1, 2, 4, 8].map((t) => sglangTunedTile(undefined, 512, 64, 'h200-sxm', t)?.n)).toEqual([
      64, 64, 128, 128,
    ]);
    expect(sglangTunedTile(undefined, 512, 64, 'h200-sxm', 4)?.m).toBe(16);
    // E=512,N=128: the 0.5.3..0.5.8 wheels hold only triton_3_4_0's copy (N 64, then 128); 0.5.14 adds triton_3_5_1's
    // (N 32, then 64), which the lookup reads first.
    expect([1, 4].map((t) => sglangTunedTile('0.5.8', 512, 128, 'h200-sxm', t)?.n)).toEqual([
      64, 128,
    ]);
    expect([1, 4].map((t) => sglangTunedTile('0.5.14', 512, 128, 'h200-sxm', t)?.n)).toEqual([
      32, 64,
    ]);
    // 0.4.6.post1's flat E=8,N=7168 H100 file against 0.5.3's triton_3_3_1 one.
    expect(sglangTunedTile('0.4.6.post1', 8, 7168, 'h100-sxm', 2)?.n).toBe(128);
    expect(sglangTunedTile('0.5.3', 8, 7168, 'h100-sxm', 2)?.n).not.toBe(128);
    // sglang==0.5.14 ships E=128,N=704,device_name=NVIDIA_H200_down.json for w2 (entries not kept): no tiles given there,
    // the up file's alone before (it ships from 0.5.14 too, so 0.5.8 has neither).
    expect(sglangDownFileShipped('0.5.14', 'E=128,N=704,device_name=NVIDIA_H200')).toBe(true);
    expect(sglangDownFileShipped('0.5.8', 'E=128,N=704,device_name=NVIDIA_H200')).toBe(false);
    expect(sglangTunedTile(undefined, 128, 704, 'h200-sxm', 1)?.n).toBeUndefined();
    // E=128,N=768 on the H100 (shipped from 0.5.3) gains its down file in 0.5.23.
    expect(sglangTunedTile('0.5.14', 128, 768, 'h100-sxm', 1)?.n).toBe(
      sglangBlockNOf('0.5.14', 'E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3', 1),
    );
    expect(sglangTunedTile('0.5.14', 128, 768, 'h100-sxm', 1)?.n).toBeDefined();
    expect(sglangTunedTile(undefined, 128, 768, 'h100-sxm', 1)?.n).toBeUndefined();
    // No file for the shape on the card: nothing.
    expect(sglangTunedTile(undefined, 512, 64, 'a100-80gb-sxm', 4)?.n).toBeUndefined();
  });

  it("reads vLLM's block-FP8 files by release (the B200 E=128,N=768 file changed in 0.10.2)", () => {
    const d = FRAMEWORKS.vllm.fusedMoeTile16!.defaults!.blockFp8!;
    expect(d.tile!('0.10.0', 128, 768, 'b200', 2)?.n).toBe(256);
    expect(d.tile!('0.10.2', 128, 768, 'b200', 2)?.n).toBe(128);
    expect(d.tile!('0.9.1', 256, 256, 'h200-sxm', 1)?.n).toBe(64);
    expect(d.tile!('0.9.1', 256, 256, 'h200-sxm', 8)?.n).toBe(128);
    // The 0.11.0 wheel's files are not read.
    expect(d.tile!('0.11.0', 256, 256, 'h200-sxm', 8)?.n).toBeUndefined();
  });
});

// sgl-project/sglang#10404's build (SGLang of mid-September 2025, before the small-batch cap), the 0.5.3 wheel's file.
const SEPT_2025: Partial<TimeOptions> = { engineVersion: '0.5.2', moeAlignUncapped: true };

function nextExit(batch: number, t: Partial<TimeOptions>): number {
  const time = { ...defaultTimeOptions(8), ...SEPT_2025, ...t };
  const r = gpuRates(findGpu('h200-sxm'), time, true);
  return decodeExitSeconds(NEXT, { ...NEXT_SGLANG, batch }, time, r, true);
}

describe("the fused_moe grid at a tuned file's tiles", () => {
  it("launches SGLang's Qwen3-Next over TP 8 on an H200 at the file's 128 columns, not the default 32", () => {
    const time = { ...defaultTimeOptions(8), ...SEPT_2025 };
    const r = gpuRates(findGpu('h200-sxm'), time, true);
    const tuned = tunedTile(NEXT, { ...NEXT_SGLANG, batch: 4 }, time, r, {
      triton16: true,
      tokens: 4,
    });
    expect(tuned).toEqual({ m: 16, n: 128 });
    const g = FRAMEWORKS.sglang.fusedMoeTile16!.grid!;
    const s = { batch: 4, tp: 8, cc: r.cc, sms: r.sms ?? 0, blockFp8: false, uncapped: true };
    // w13 128 wide and w2 2048 wide: 4 + 64 columns at N 32, 1 + 16 at N 128; the same row blocks (M 16 both).
    expect(exitPrograms(NEXT, g, { ...s, tuned }) / exitPrograms(NEXT, g, s)).toBeCloseTo(
      17 / 68,
      12,
    );
    // The Before run of sgl-project/sglang#10404 had no file (the default tiles): more early-exiting programs priced.
    const before = nextExit(4, { moeDefaultTiles: true });
    const after = nextExit(4, {});
    expect(after).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(after * 2);
  });

  it('launches no more early-exiting programs at a wider BLOCK_SIZE_N (property)', () => {
    const g = FRAMEWORKS.sglang.fusedMoeTile16!.grid!;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 512 }),
        fc.constantFrom(16, 32, 64, 128),
        fc.constantFrom(32, 64, 128, 256),
        (batch, m, n) => {
          const s = { batch, tp: 8, cc: 9, sms: 132, blockFp8: false, uncapped: true };
          const narrow = exitPrograms(NEXT, g, { ...s, tuned: { m, n } });
          const wide = exitPrograms(NEXT, g, { ...s, tuned: { m, n: 2 * n } });
          expect(wide).toBeLessThanOrEqual(narrow);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("prices vLLM's capped launch alike at the default and SGLang's tuned tiles below 16 tokens, as vllm-project/vllm#44818 timed", () => {
    // vllm-project/vllm#44818: Gemma 4's E=128, N=704, K=2816, top-8, BF16 on an H200, benchmark_moe.py-style kernel
    // microbenchmark, default against SGLang's tuned file (sgl-project/sglang#26588): 189.2 / 185.1, 187.0 / 188.9,
    // 185.4 / 185.1 and 200.0 / 204.4 us at M = 1, 2, 4, 8 (at most 4.4 us apart). vLLM's launch caps the row blocks at
    // M x top_k below BLOCK_SIZE_M tokens, so few programs exit at either tile: the programs per SM the two tiles' grids
    // differ by, at the Hopper cost of one (engines/sglang/fused-moe-grid.ts), stay within the measured difference.
    const GEMMA4_MOE: ModelFacts = {
      ...NEXT,
      experts: 128,
      topK: 8,
      hidden: 2816,
      expertFfn: 704,
      gated: true,
      moeLayers: 1,
    };
    const g = FRAMEWORKS.vllm.fusedMoeTile16!.grid!;
    const MEASURED_US: readonly (readonly [number, number, number])[] = [
      [1, 189.2, 185.1],
      [2, 187.0, 188.9],
      [4, 185.4, 185.1],
      [8, 200.0, 204.4],
    ];
    for (const [batch, defaultUs, tunedUs] of MEASURED_US) {
      const tuned = {
        m: sglangTunedTile(undefined, 128, 704, 'h200-sxm', batch)!.m,
        n: sglangBlockNOf(undefined, 'E=128,N=704,device_name=NVIDIA_H200', batch)!,
      };
      const s = { batch, tp: 1, cc: 9, sms: 132, blockFp8: false, uncapped: false };
      // What the step is priced (beyond the timed call's programs per SM) differs by no more than the timing did.
      const priced =
        fusedMoeExitSeconds(GEMMA4_MOE, FRAMEWORKS.vllm, s) -
        fusedMoeExitSeconds(GEMMA4_MOE, FRAMEWORKS.vllm, { ...s, tuned });
      expect(Math.abs(priced)).toBeLessThanOrEqual(Math.abs(defaultUs - tunedUs) * 1e-6);
      // Every early-exiting program counted, at the per-program cost: within the table's largest spread (4.4 us).
      const programs =
        exitPrograms(GEMMA4_MOE, g, s) - exitPrograms(GEMMA4_MOE, g, { ...s, tuned });
      expect((Math.abs(programs) / 132) * g.exitProgram.hopper!.seconds).toBeLessThanOrEqual(
        4.4e-6,
      );
    }
  });
});
