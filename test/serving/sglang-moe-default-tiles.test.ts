// SGLang's data for the default fused_moe tiles (engines/sglang/fused-moe-configs.ts; priced by
// time/moe-default-tiles.ts, whose own tests are test/core/moe-default-tiles.test.ts): its Triton fused_moe runs a tuned
// config file where its release ships one for the step's experts, their width on the GPU and the card (read from the
// PyPI wheels), else get_default_config's tiles; above E tokens the 16-bit default keeps 394.2 / 545.5 of a tuned
// file's rate (sgl-project/sglang#34150).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  SGLANG_FUSED_MOE_DEFAULTS,
  SGLANG_LARGE_READ_SHARE,
  sglangTuned16,
} from '../../src/core/engines/sglang/fused-moe-configs.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';

const BITS16 = SGLANG_FUSED_MOE_DEFAULTS.bits16!;

describe("SGLang's shipped 16-bit fused_moe configs", () => {
  it('reads the wheels: E=128,N=352 ships for the H100 from 0.5.14, never for the A100', () => {
    expect(sglangTuned16('0.5.4.post2', 128, 352, 'h100-sxm')).toBe(false);
    expect(sglangTuned16('0.5.14', 128, 352, 'h100-sxm')).toBe(true);
    expect(sglangTuned16(undefined, 128, 352, 'h100-sxm')).toBe(true);
    expect(sglangTuned16('0.5.23', 128, 352, 'a100-80gb-sxm')).toBe(false);
    // Mixtral-8x7B over TP 2 (E=8, N=7168) on the H100 ships in every wheel read.
    expect(sglangTuned16('0.4.6.post1', 8, 7168, 'h100-sxm')).toBe(true);
  });

  it('knows nothing of cards it cannot name or releases before the wheels read', () => {
    expect(sglangTuned16('0.5.23', 128, 352, 'rtx-4090')).toBeUndefined();
    expect(sglangTuned16('0.2+main-2024-08-13', 64, 1408, 'h100-sxm')).toBeUndefined();
  });
});

describe("SGLang's default 16-bit tiles against a tuned file", () => {
  it('keep 394.2 / 545.5 of the tuned rate above E tokens (sgl-project/sglang#34150), all of it at or below', () => {
    expect(SGLANG_LARGE_READ_SHARE).toBeCloseTo(0.7226, 3);
    expect(BITS16.slowdown(512, 256)).toBe(1 / SGLANG_LARGE_READ_SHARE);
    expect(BITS16.slowdown(256, 256)).toBe(1);
    expect(BITS16.slowdown(1, 128)).toBe(1);
  });

  it('is a step at E tokens: never below 1, and the same for every count above E', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20000 }),
        fc.integer({ min: 2, max: 512 }),
        (tokens, e) => {
          const f = BITS16.slowdown(tokens, e);
          expect(f).toBeGreaterThanOrEqual(1);
          expect(f).toBe(tokens > e ? BITS16.slowdown(e + 1, e) : 1);
        },
      ),
    );
  });
});

describe("SGLang's profile", () => {
  it('lists 16-bit default tiles only, run where the step runs the Triton fused_moe, not per rank under EP', () => {
    expect(FRAMEWORKS.sglang.fusedMoeTile16?.defaults).toBe(SGLANG_FUSED_MOE_DEFAULTS);
    expect(Object.keys(SGLANG_FUSED_MOE_DEFAULTS)).toEqual(['bits16']);
    expect(BITS16.triton).toBeUndefined();
    expect(BITS16.localUnderEp).toBeUndefined();
  });
});
