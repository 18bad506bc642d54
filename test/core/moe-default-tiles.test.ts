// The one pricing of the engines' default fused_moe tiles (time/moe-default-tiles.ts): where the step's dtype family
// runs the Triton fused_moe and the release ships no tuned config file for the layer's local experts, width and card
// (the profile's fusedMoeTile16.defaults), a decode step's routed-expert bytes at the read rate take the family's
// slowdown at the step's routed tokens. Each engine's data is tested beside its other serving tests
// (test/serving/vllm-moe-default-tiles.test.ts, test/serving/sglang-moe-default-tiles.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { routedBatch } from '../../src/core/time/graph-step.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { defaultTileSeconds } from '../../src/core/time/moe-default-tiles.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

// One MoE layer's routed-expert bytes on one GPU this step.
const LAYER_BYTES = 1e8;

// zai-org/GLM-4.5-Air in bf16 over TP 4 under SGLang: 128 routed experts of width 1408, 352 a GPU; no tuned file for
// E=128,N=352 on an A100 in any wheel read, on an H100 from 0.5.14 (engines/sglang/fused-moe-configs.ts).
const AIR = modelFacts(resolveModel('glm-4.5-air'));
const AIR_SGLANG: EstimateOptions = {
  ...defaultOptions('inference'),
  framework: 'sglang',
  gpus: 4,
  tp: 4,
  batch: 256,
  seq: 2048,
};

function air(
  gpu: string,
  o: Partial<EstimateOptions> = {},
  t: Partial<TimeOptions> = {},
  triton16 = true,
) {
  const time = { ...defaultTimeOptions(o.tp ?? 4), ...t };
  const r = gpuRates(findGpu(gpu), time, true);
  return defaultTileSeconds(AIR, { ...AIR_SGLANG, ...o }, time, r, LAYER_BYTES, triton16);
}

// vllm-project/vllm#19455's build without the tuned file: Qwen3-30B-A3B-FP8 (block FP8, E=128, N=768) on one B200,
// vLLM main of 2025-06-11, whose v0.9.1 listing has no B200 file for the shape (engines/vllm/moe-tiles.ts).
const VLLM19455_DEFAULT = 'vllm19455-qwen3-30b-a3b-fp8-b200-sharegpt-n2000-c200-default';
const qwen = (() => {
  const c = loadThroughputCases('throughput.json').find((x) => x.id === VLLM19455_DEFAULT);
  if (c === undefined) throw new Error(`no row ${VLLM19455_DEFAULT}`);
  const { options, time, gpu, arch } = caseInputs(c);
  return { m: modelFacts(arch), o: { ...options, batch: 256 }, time, r: gpuRates(gpu, time, true) };
})();

function qwenSeconds(
  o: Partial<EstimateOptions> = {},
  t: Partial<TimeOptions> = {},
  triton16 = false,
) {
  return defaultTileSeconds(
    qwen.m,
    { ...qwen.o, ...o },
    { ...qwen.time, ...t },
    qwen.r,
    LAYER_BYTES,
    triton16,
  );
}

describe('the default tiles of a 16-bit family (the SGLang profile)', () => {
  it("adds the MoE layers' bytes at the read rate times (slowdown - 1) above E tokens", () => {
    const time = defaultTimeOptions(4);
    const r = gpuRates(findGpu('a100-80gb-sxm'), time, true);
    const f = FRAMEWORKS.sglang.fusedMoeTile16!.defaults!.bits16!.slowdown(256, 128);
    expect(f).toBeGreaterThan(1);
    expect(air('a100-80gb-sxm')).toBeCloseTo(AIR.moeLayers * (LAYER_BYTES / r.mem) * (f - 1), 12);
    expect(air('h100-sxm', {}, { engineVersion: '0.5.4.post2' })).toBeGreaterThan(0);
  });

  it('adds nothing at or below E tokens, with a tuned file, under EP or DP attention, or off the Triton runner', () => {
    expect(air('a100-80gb-sxm', { batch: 128 })).toBe(0);
    expect(air('h100-sxm', {}, { engineVersion: '0.5.14' })).toBe(0); // the release ships E=128,N=352
    expect(air('a100-80gb-sxm', {}, { moeTunedConfig: true })).toBe(0);
    expect(air('a100-80gb-sxm', { ep: 4 })).toBe(0); // no localUnderEp
    expect(air('a100-80gb-sxm', { dpAttention: true, tp: 1 })).toBe(0);
    expect(air('a100-80gb-sxm', {}, {}, false)).toBe(0);
    expect(air('rtx-4090', { gpus: 1, tp: 1 })).toBe(0); // a card the table cannot name
    expect(air('mi300x')).toBe(0); // off NVIDIA
    expect(air('a100-80gb-sxm', { framework: 'vllm' })).toBe(0); // a profile without the 16-bit family
  });
});

describe('the default tiles of a block-FP8 family (the vLLM profile)', () => {
  it("adds (slowdown - 1) of the layers' bytes at the read rate where the kernel and listing say so", () => {
    const f = FRAMEWORKS.vllm.fusedMoeTile16!.defaults!.blockFp8!.slowdown(256, 128);
    expect(f).toBe(1.25);
    expect(qwenSeconds()).toBeCloseTo((qwen.m.moeLayers * LAYER_BYTES * (f - 1)) / qwen.r.mem, 12);
  });

  it("prices the rank's local experts under EP where the family says so, and nothing for other steps", () => {
    expect(qwenSeconds({ ep: 2, gpus: 2, tp: 2 })).toBeGreaterThan(0); // E=64, N=768 on the rank: no file in 0.9.1
    expect(qwenSeconds({ weights: 'bf16' }, {}, true)).toBe(0); // 16-bit experts: no such family in the profile
    expect(qwenSeconds({}, { moeTunedConfig: true })).toBe(0);
    expect(qwenSeconds({}, { engineVersion: undefined })).toBe(0); // no release: no listing, no kernel known
    expect(qwenSeconds({}, { engineVersion: '0.10.0' })).toBe(0); // CUTLASS's grouped GEMM on SM100
    expect(qwenSeconds({ dpAttention: true })).toBe(0);
    expect(qwenSeconds({ framework: 'sglang' })).toBe(0); // a profile without the block-FP8 family
  });
});

describe('the default tiles, for any profile that lists them', () => {
  const cases = [
    { name: 'a 16-bit family', fw: 'sglang' as const, triton16: true },
    { name: 'a block-FP8 family', fw: 'vllm' as const, triton16: false },
  ];
  for (const { name, fw, triton16 } of cases)
    it(`never go below zero, scale with the bytes, and vanish where the slowdown is 1 (${name})`, () => {
      const m = fw === 'sglang' ? AIR : qwen.m;
      const o0 = fw === 'sglang' ? AIR_SGLANG : qwen.o;
      const time = fw === 'sglang' ? defaultTimeOptions(4) : qwen.time;
      const r = fw === 'sglang' ? gpuRates(findGpu('a100-80gb-sxm'), time, true) : qwen.r;
      const family = FRAMEWORKS[fw].fusedMoeTile16!.defaults![triton16 ? 'bits16' : 'blockFp8']!;
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 4096 }),
          fc.double({ min: 0, max: 1e10, noNaN: true }),
          (batch, bytes) => {
            const o = { ...o0, batch };
            const a = defaultTileSeconds(m, o, time, r, bytes, triton16);
            const b = defaultTileSeconds(m, o, time, r, 2 * bytes, triton16);
            expect(a).toBeGreaterThanOrEqual(0);
            expect(b).toBeCloseTo(2 * a, 9);
            if (family.slowdown(routedBatch(o, time, r, batch), m.experts) === 1) expect(a).toBe(0);
          },
        ),
        { numRuns: 50 },
      );
    });
});
