// vLLM's default fused_moe tiles on ROCm (engines/vllm/moe-tiles.ts `rocmTriton`, time/moe-default-tiles.ts): with
// AITER's MoE off (VLLM_ROCM_USE_AITER defaults to "False" in the 0.8.5 wheel's envs.py) `fused_experts` runs the
// Triton fused_moe on an AMD GPU, looking up a block-FP8 config file named for the card's amdsmi market name
// (`AMD_Instinct_MI300X`); the vllm==0.8.5 wheel ships none for Qwen3-30B-A3B's (E=128, N=768) or Qwen3-235B-A22B's TP-4
// (E=128, N=384) shape, the 0.9.1 wheel both (vllm-project/vllm#17530 and vllm-project/vllm#17535 add them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { VLLM_BLOCK_FP8_MOE_CONFIGS } from '../../src/core/engines/vllm/fused-moe-configs.js';
import { VLLM_FUSED_MOE_DEFAULT_TILES } from '../../src/core/engines/vllm/moe-tiles.js';
import { estimateTime } from '../../src/core/time/index.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import type { TimeOptions } from '../../src/schema/time.js';

const TILES = VLLM_FUSED_MOE_DEFAULT_TILES.blockFp8!;

// vllm-project/vllm#17530's Before Tuning run: Qwen3-30B-A3B-FP8 on one MI300X, vLLM main of 2025-05-01 (V0, AITER
// off), 200 prompts of 1000 tokens generating 2000 each.
const VLLM17530_BEFORE_ROW = 'vllm17530-qwen3-30b-a3b-fp8-mi300x-i1000-o2000-b200';
const VLLM17530_BUILD = '0.8.5+main-2025-05-01';

const row = (id: string) => {
  const c = loadThroughputCases('throughput.json').find((x) => x.id === id);
  if (c === undefined) throw new Error(`no row ${id}`);
  return c;
};

/** The row's decode step at `batch` in flight, with `time` laid over the row's own time options. */
const tpot = (id: string, batch: number, time: Partial<TimeOptions> = {}) => {
  const { options, time: t, gpu, arch, facts } = caseInputs(row(id));
  return (
    estimateTime(arch, { ...options, batch }, gpu, { ...t, ...time }, facts.pool).tpotSeconds ?? 0
  );
};

describe("vLLM's block-FP8 fused_moe default tiles on ROCm", () => {
  it("lists the 0.8.5 wheel's 15 block-FP8 files, without the MI300X Qwen3 shapes that 0.9.1 adds", () => {
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.8.5']).toHaveLength(15);
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.9.1']).toHaveLength(19);
    for (const key of ['128,768,AMD_Instinct_MI300X', '128,384,AMD_Instinct_MI300X']) {
      expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.8.5']).not.toContain(key);
      expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.9.1']).toContain(key);
    }
    expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.8.5']).toContain('256,256,AMD_Instinct_MI300X');
    expect(TILES.tuned(VLLM17530_BUILD, 128, 768, 'mi300x')).toBe(false);
    expect(TILES.tuned('0.9.1', 128, 768, 'mi300x')).toBe(true);
    expect(TILES.tuned(VLLM17530_BUILD, 256, 256, 'mi300x')).toBe(true);
  });

  it("runs the Triton fused_moe on ROCm with AITER's MoE off, AITER's with it on, in the release read", () => {
    expect(TILES.rocmTriton!(VLLM17530_BUILD, false)).toBe(true);
    expect(TILES.rocmTriton!(VLLM17530_BUILD, true)).toBe(false);
    expect(TILES.rocmTriton!('0.9.1', false)).toBeUndefined(); // its ROCm dispatch not read
    expect(TILES.rocmTriton!(undefined, false)).toBeUndefined();
  });

  it("slows vllm-project/vllm#17530's build without the MI300X file at 200 in flight, not the run with it", () => {
    const before = tpot(VLLM17530_BEFORE_ROW, 200);
    const tuned = tpot(VLLM17530_BEFORE_ROW, 200, { moeTunedConfig: true });
    const aiter = tpot(VLLM17530_BEFORE_ROW, 200, { rocmAiter: true, moeTunedConfig: true });
    // 200 routed tokens sit on the 1.25x plateau: the step's expert bytes take a quarter more.
    expect(before / tuned).toBeGreaterThan(1.03);
    expect(tpot(VLLM17530_BEFORE_ROW, 200, { rocmAiter: true })).toBeCloseTo(aiter, 9);
  });

  it('never shortens a step, and adds nothing at 64 routed tokens or fewer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 512 }), (batch) => {
        const before = tpot(VLLM17530_BEFORE_ROW, batch);
        const tuned = tpot(VLLM17530_BEFORE_ROW, batch, { moeTunedConfig: true });
        expect(before).toBeGreaterThanOrEqual(tuned);
        if (batch <= 64) expect(before).toBeCloseTo(tuned, 12);
      }),
      { numRuns: 12 },
    );
  });
});
