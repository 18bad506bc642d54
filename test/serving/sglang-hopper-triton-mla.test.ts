/**
 * SGLang's Triton MLA decode layer for DeepSeek-V3's block-FP8 checkpoint on Hopper, the default there from sglang==0.4.1
 * to 0.4.5 (engines/sglang/mla-backend.ts SGLANG_HOPPER_TRITON_MLA_COUNTED; engines/sglang/decode-kernels.ts
 * SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS): each absorbed bmm's input quantized by fp8_utils.py `input_to_float8`'s
 * torch ops, the shared expert on the step's stream, the torch.compile'd grouped top-k, and in the releases whose YaRN
 * rotary is torch its 12 ops. sglang==0.4.5.post1 took FA3 on Hopper, so post releases are ordered
 * (compare-releases.ts releaseNamedBeforePost).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { releaseNamedBefore, releaseNamedBeforePost } from '../../src/core/compare-releases.js';
import {
  SGLANG_CUDA_BIASED_ROUTER_KERNELS,
  SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS,
  SGLANG_HOPPER_TRITON_MLA_TORCH_ROPE_DEEPSEEK_KERNELS,
  SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS,
  sglangDecodeFeatureKernels,
} from '../../src/core/engines/sglang/decode-kernels.js';
import { sglangMlaDecodeBackend } from '../../src/core/engines/sglang/mla-backend.js';
import { decodeFeatureKernels } from '../../src/core/time/decode-host.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';
import { rowEngineVersion } from '../helpers/row-version.js';

const dsv3 = modelFacts(resolveModel('deepseek-v3'));
// Builds as the calibration rows name them: sgl-project/sglang#4918's branch off 0.4.4.post3 (the fused rotary) and
// sgl-project/sglang#4858's off 0.4.4 (the torch rotary).
const BUILD_TP8_0_4_4_POST3 = rowEngineVersion('sglang4918-dsv3-fp8-8xh200-tp8-sharegpt-rps8-n300');
const BUILD_DPATTN_0_4_4 = rowEngineVersion(
  'sglang4858-dsv3-fp8-8xh200-dpattn8-i1000-o10-c128-run5',
);
const BUILD_FA3_0_4_5_POST3 = rowEngineVersion('llmie-dsr1-8xh200-sglang0453-n50-i1000-o2000');

const H200 = 9.0;

function fp8Flags(batch: number, seq: number): RawFlags {
  return {
    model: 'deepseek-v3',
    gpu: 'h200-sxm',
    method: 'inference',
    framework: 'sglang',
    weights: 'fp8',
    gpus: 8,
    tp: 8,
    batch,
    seq,
  };
}

function step(batch: number, seq: number, version: string) {
  const f = fp8Flags(batch, seq);
  const o = optionsFromFlags(f);
  const t: TimeOptions = { ...timeOptionsFromFlags(f, o), engineVersion: version };
  return decodeStep(dsv3, o, t, gpuRates(findGpu('h200-sxm'), t), true, seq);
}

describe('post releases in order', () => {
  it('puts a .postN after its release and before the next', () => {
    expect(releaseNamedBeforePost('0.4.5', '0.4.5.post1')).toBe(true);
    expect(releaseNamedBeforePost('0.4.5.post1', '0.4.5.post1')).toBe(false);
    expect(releaseNamedBeforePost('0.4.5.post3', '0.4.5.post1')).toBe(false);
    // The builds two DeepSeek-V3 H200 rows name (a release followed by the upstream change and its date).
    const rps8 = rowEngineVersion('sglang4918-dsv3-fp8-8xh200-tp8-sharegpt-rps8-n300');
    const dpAttention = rowEngineVersion('sglang4858-dsv3-fp8-8xh200-dpattn8-i1000-o10-c128-run5');
    expect(releaseNamedBeforePost(rps8, '0.4.5.post1')).toBe(true);
    expect(releaseNamedBeforePost(dpAttention, '0.4.4.post3')).toBe(true);
    // A version naming fewer parts decides on those only, as releaseNamedBefore does.
    expect(releaseNamedBeforePost('0.4', '0.4.5.post1')).toBe(false);
    expect(releaseNamedBeforePost('bogus', '0.4.5')).toBe(false);
  });

  it('agrees with releaseNamedBefore wherever the bound names no post part', () => {
    const part = fc.integer({ min: 0, max: 12 });
    const version = fc.oneof(
      fc.tuple(part, part).map(([a, b]) => `${a}.${b}`),
      fc.tuple(part, part, part).map(([a, b, c]) => `${a}.${b}.${c}`),
      fc.tuple(part, part, part, part).map(([a, b, c, p]) => `${a}.${b}.${c}.post${p}`),
      fc.tuple(part, part, part).map(([a, b, c]) => `${a}.${b}.${c}+local-2025-01-01`),
    );
    const bound = fc.tuple(part, part, part).map(([a, b, c]) => `${a}.${b}.${c}`);
    fc.assert(
      fc.property(version, bound, (v, b) => {
        expect(releaseNamedBeforePost(v, b)).toBe(releaseNamedBefore(v, b));
      }),
    );
  });
});

describe("SGLang's Triton MLA layer on Hopper, 0.4.1 to 0.4.5", () => {
  it('takes Triton on Hopper through 0.4.5 and FA3 from 0.4.5.post1', () => {
    for (const version of ['0.4.1', '0.4.5', BUILD_TP8_0_4_4_POST3, BUILD_DPATTN_0_4_4])
      expect(sglangMlaDecodeBackend('deepseek_v3', H200, { version })).toBe('triton');
    for (const version of ['0.4.5.post1', BUILD_FA3_0_4_5_POST3, '0.4.6.post2'])
      expect(
        [H200, 10.0, 8.0, 0].map((cc) => sglangMlaDecodeBackend('deepseek_v3', cc, { version })),
      ).toEqual(['fa3', 'triton', 'triton', 'triton']);
  });

  it("counts the release's layer by its rotary, and nothing outside the span, the card or the backend", () => {
    const k = (cc: number, version: string, attentionBackend?: string) =>
      sglangDecodeFeatureKernels('deepseek_v3', cc, undefined, {
        version,
        ...(attentionBackend === undefined ? {} : { attentionBackend }),
      });
    expect(k(H200, BUILD_TP8_0_4_4_POST3)).toBe(SGLANG_HOPPER_TRITON_MLA_DEEPSEEK_KERNELS);
    for (const version of [BUILD_DPATTN_0_4_4, '0.4.1', '0.4.3', '0.4.4.post2', '0.4.5'])
      expect(k(H200, version)).toBe(SGLANG_HOPPER_TRITON_MLA_TORCH_ROPE_DEEPSEEK_KERNELS);
    for (const version of ['0.4.0', BUILD_FA3_0_4_5_POST3, '0.4.6.post2', '0.5.7'])
      expect(k(H200, version)).toBe(SGLANG_CUDA_BIASED_ROUTER_KERNELS);
    expect(k(H200, '0.4.4', 'fa3')).toBe(SGLANG_CUDA_BIASED_ROUTER_KERNELS);
    expect(k(10.0, '0.4.6.post2')).toBe(SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS);
    expect(k(8.0, '0.4.4')).toBe(SGLANG_CUDA_BIASED_ROUTER_KERNELS);
    expect(
      sglangDecodeFeatureKernels('qwen3_moe', H200, undefined, { version: '0.4.4' }),
    ).toBeUndefined();
  });

  it("adds the layer's kernels to a block-FP8 step: the MLA layers, shared experts, router and quantizations", () => {
    const o = optionsFromFlags(fp8Flags(64, 2048));
    const t = (engineVersion: string): TimeOptions => ({
      ...timeOptionsFromFlags(fp8Flags(64, 2048), o),
      engineVersion,
    });
    const fused = decodeFeatureKernels(dsv3, o, H200, t(BUILD_TP8_0_4_4_POST3));
    const torchRope = decodeFeatureKernels(dsv3, o, H200, t(BUILD_DPATTN_0_4_4));
    expect(dsv3.mlaLayers).toBe(61);
    expect(dsv3.moeLayers).toBe(58);
    expect(torchRope - fused).toBe(61 * 12);
    // 41 a layer, 4 + 1 + 6 an MoE layer, then a quantization before each block-FP8 GEMM and two an MoE layer.
    expect(fused).toBeGreaterThan(61 * 41 + 58 * (4 + 1 + 6) + 58 * 2);
    expect(decodeFeatureKernels(dsv3, o, H200, t(BUILD_FA3_0_4_5_POST3))).toBe(0);
  });

  it("never shortens a step, and lengthens it by the kernels' graph gaps", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 256, max: 8192 }),
        (batch, seq) => {
          const fa3 = step(batch, seq, BUILD_FA3_0_4_5_POST3).stepSeconds;
          const fused = step(batch, seq, BUILD_TP8_0_4_4_POST3).stepSeconds;
          const torchRope = step(batch, seq, BUILD_DPATTN_0_4_4).stepSeconds;
          expect(fused).toBeGreaterThan(fa3);
          expect(torchRope).toBeGreaterThan(fused);
        },
      ),
      { numRuns: 15 },
    );
    // About 2,900 more graph kernels at a few microseconds each: several milliseconds a step.
    expect(step(64, 2048, BUILD_TP8_0_4_4_POST3).stepSeconds).toBeGreaterThan(
      step(64, 2048, BUILD_FA3_0_4_5_POST3).stepSeconds + 0.005,
    );
  });
});
