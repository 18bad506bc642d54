/**
 * SGLang's MLA decode backend by release and GPU (engines/sglang/mla-backend.ts): Triton everywhere up to 0.4.5, FA3 on
 * Hopper and Triton elsewhere in 0.4.6, the 0.5.6 choice after; a backend the run named wins. The Triton MLA decode
 * before split-KV (sgl-project/sglang#2394, sglang==0.4.0.post2) reads the latent's value columns and its fp16 logits a
 * second time (time/decode-attention.ts mlaTwoPassBytes), and the release's Triton path launches its own MLA kernels
 * on SM100 and gfx942 (engines/sglang/decode-kernels.ts) where 0.5.6's trtllm_mla and AITER counts stood.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { mlaTwoPassBytes } from '../../src/core/time/decode-attention.js';
import { decodeFeatureKernels, trtllmMoeBlockFp8 } from '../../src/core/time/decode-host.js';
import {
  sglangMlaDecodeBackend,
  sglangMlaTwoPass,
} from '../../src/core/engines/sglang/mla-backend.js';
import {
  SGLANG_GFX942_DEEPSEEK_KERNELS,
  SGLANG_GFX942_TRITON_MLA_DEEPSEEK_KERNELS,
  SGLANG_SM100_DEEPSEEK_KERNELS,
  SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS,
  sglangDecodeFeatureKernels,
} from '../../src/core/engines/sglang/decode-kernels.js';
import { MLA_TWO_PASS_LOGIT_BYTES } from '../../src/core/memory/decode-feature-kernels.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';
import { rowEngineVersion } from '../helpers/row-version.js';

const lite = modelFacts(resolveModel('deepseek-v2-lite')); // kv_lora_rank 512 + rope 64, 16 heads, 27 layers
const dsv3 = modelFacts(resolveModel('deepseek-v3'));
const llama = modelFacts(resolveModel('llama-3.1-8b'));
const sglang = FRAMEWORKS.sglang;
// Builds as the calibration rows name them: a release, then the upstream pull request's branch and date
// (sgl-project/sglang#1138, sgl-project/sglang#6111 and sgl-project/sglang#3237); the release part decides.
const BUILD_EAGER_MLA_2024 = rowEngineVersion('sglang1138-dsv2lite-a100-mla-sharegpt-rps128-n5000');
const BUILD_B200_TRITON_MLA = rowEngineVersion(
  'sglang6111-dsv3-fp8-8xb200-tp8-i512-o512-bs1-default',
);
const BUILD_MI300X_TRITON_MLA = rowEngineVersion('sglang3237-dsv3-fp8-8xmi300x-tp8-bs4-i2048-o256');

function step(model: string, gpu: string, batch: number, ctx: number, version: string) {
  const f: RawFlags = { model, gpu, method: 'inference', batch, framework: 'sglang', seq: ctx };
  const o = optionsFromFlags(f);
  const t: TimeOptions = { ...timeOptionsFromFlags(f, o), engineVersion: version };
  const m = model === 'llama-3.1-8b' ? llama : lite;
  return decodeStep(m, o, t, gpuRates(findGpu(gpu), t), true, ctx);
}

describe("SGLang's MLA decode backend by release and GPU", () => {
  it('takes Triton up to 0.4.5, FA3 on Hopper in 0.4.6, and the 0.5.6 choice after', () => {
    for (const version of [BUILD_EAGER_MLA_2024, '0.3.0', '0.4.3', '0.4.5'])
      for (const cc of [8.0, 9.0, 10.0, 0])
        expect(sglangMlaDecodeBackend('deepseek_v3', cc, { version })).toBe('triton');
    const v046 = { version: BUILD_B200_TRITON_MLA };
    expect(
      [9.0, 10.0, 8.0, 0].map((cc) => sglangMlaDecodeBackend('deepseek_v3', cc, v046)),
    ).toEqual(['fa3', 'triton', 'triton', 'triton']);
    // 0.4.7 to 0.5.3: FlashInfer's MLA on SM100 for DeepSeek-V3 too, AITER on ROCm.
    for (const version of ['0.4.7', '0.5.0rc0', '0.5.3'])
      expect(
        [9.0, 10.0, 8.0, 0].map((cc) => sglangMlaDecodeBackend('deepseek_v3', cc, { version })),
      ).toEqual(['fa3', 'flashinfer', 'triton', 'aiter']);
    for (const build of [undefined, { version: '0.5.4' }, { version: '0.5.7' }])
      expect(
        [9.0, 10.0, 8.0, 0].map((cc) => sglangMlaDecodeBackend('deepseek_v3', cc, build)),
      ).toEqual(['fa3', 'trtllm_mla', 'triton', 'aiter']);
    expect(
      sglangMlaDecodeBackend('deepseek_v3', 10.0, { version: '0.5.7', attentionBackend: 'triton' }),
    ).toBe('triton');
    expect(
      sglangMlaDecodeBackend('deepseek_v3', 9.0, {
        version: '0.5.7',
        attentionBackend: 'flashmla',
      }),
    ).toBe('flashmla');
    // A name SGLang's --attention-backend does not take leaves the release's choice.
    expect(
      sglangMlaDecodeBackend('deepseek_v3', 9.0, { version: '0.4.3', attentionBackend: 'bogus' }),
    ).toBe('triton');
  });

  it('runs the two-pass Triton kernel before split-KV only, and only on the Triton backend', () => {
    expect(sglangMlaTwoPass('deepseek_v2', 8.0, { version: '0.3.0+main-2024-09-08' })).toBe(true);
    expect(sglangMlaTwoPass('deepseek_v2', 9.0, { version: '0.2+main-2024-09-01' })).toBe(true);
    expect(sglangMlaTwoPass('deepseek_v2', 8.0, { version: '0.4.1' })).toBe(false);
    expect(sglangMlaTwoPass('deepseek_v2', 8.0, {})).toBe(false);
    expect(
      sglangMlaTwoPass('deepseek_v2', 8.0, { version: '0.3.0', attentionBackend: 'flashinfer' }),
    ).toBe(false);
  });
});

describe('the two-pass MLA decode reads the latent values and logits again', () => {
  it("adds the values' share of the cache and the logits written and read", () => {
    const r = gpuRates(
      findGpu('a100-80gb-sxm'),
      timeOptionsFromFlags({ method: 'inference' }, optionsFromFlags({ method: 'inference' })),
    );
    const kvGpu = 64 * 1000 * 27 * 576 * 2; // 64 sequences of 1000 tokens, 27 layers of 576 bf16 a token
    const s = { batch: 64, tp: 1, ctx: 1000, kvGpu };
    expect(lite.mlaValueShare).toBeCloseTo(512 / 576, 12);
    const logits = 2 * MLA_TWO_PASS_LOGIT_BYTES * 16 * 27 * 1000 * 64;
    expect(mlaTwoPassBytes(lite, sglang, r, { ...s, release: { version: '0.3.0' } })).toBeCloseTo(
      (kvGpu * 512) / 576 + logits,
      3,
    );
    expect(mlaTwoPassBytes(lite, sglang, r, { ...s, release: { version: '0.4.1' } })).toBe(0);
    expect(mlaTwoPassBytes(lite, FRAMEWORKS.vllm, r, { ...s, release: { version: '0.3.0' } })).toBe(
      0,
    );
  });

  it('never shortens a step, and lengthens an MLA step alone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 512 }),
        fc.integer({ min: 64, max: 4096 }),
        (batch, ctx) => {
          const two = step('deepseek-v2-lite', 'a100-80gb-sxm', batch, ctx, '0.3.0');
          const one = step('deepseek-v2-lite', 'a100-80gb-sxm', batch, ctx, '0.4.1');
          expect(two.stepSeconds).toBeGreaterThanOrEqual(one.stepSeconds);
          const l2 = step('llama-3.1-8b', 'a100-80gb-sxm', batch, ctx, '0.3.0');
          const l1 = step('llama-3.1-8b', 'a100-80gb-sxm', batch, ctx, '0.4.1');
          expect(l2.stepSeconds).toBe(l1.stepSeconds);
        },
      ),
      { numRuns: 20 },
    );
    // A KV-heavy step: 2048 sequences of 400 tokens read about 25 GB of latent a step on an A100.
    expect(
      step('deepseek-v2-lite', 'a100-80gb-sxm', 2048, 400, '0.3.0').stepSeconds,
    ).toBeGreaterThan(
      step('deepseek-v2-lite', 'a100-80gb-sxm', 2048, 400, '0.4.1').stepSeconds * 1.05,
    );
  });
});

describe("the release's Triton MLA path in place of 0.5.6's kernels", () => {
  const fp8 = (tp: number) =>
    optionsFromFlags({
      method: 'inference',
      framework: 'sglang',
      weights: 'fp8',
      gpus: 8,
      tp,
      batch: 1,
      seq: 1024,
    });

  it('counts the Triton MLA layer on SM100 in 0.4.6, the trtllm_mla set where the run named it or a 0.5 release', () => {
    const v046 = { engineVersion: BUILD_B200_TRITON_MLA };
    expect(
      sglangDecodeFeatureKernels('deepseek_v3', 10.0, undefined, { version: v046.engineVersion }),
    ).toBe(SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS);
    expect(
      sglangDecodeFeatureKernels('deepseek_v3', 10.0, undefined, {
        version: v046.engineVersion,
        attentionBackend: 'trtllm_mla',
      }),
    ).toBe(SGLANG_SM100_DEEPSEEK_KERNELS);
    expect(sglangDecodeFeatureKernels('deepseek_v3', 10.0)).toBe(SGLANG_SM100_DEEPSEEK_KERNELS);
    // FlashInfer's MLA in 0.5.3: neither the trtllm_mla set nor 0.4.6's Triton layer (not counted).
    expect(
      sglangDecodeFeatureKernels('deepseek_v3', 10.0, undefined, { version: '0.5.3' }),
    ).toBeUndefined();
    const o = fp8(8);
    const t = { ...timeOptionsFromFlags({ method: 'inference' }, o), ...v046 } as TimeOptions;
    // The Triton fused MoE, not FlashInfer's TensorRT-LLM block-scale call, in that release.
    expect(trtllmMoeBlockFp8(dsv3, o, 10.0, t)).toBe(false);
    expect(trtllmMoeBlockFp8(dsv3, o, 10.0)).toBe(true);
    expect(decodeFeatureKernels(dsv3, o, 10.0, t)).toBeGreaterThanOrEqual(
      61 * SGLANG_SM100_TRITON_MLA_DEEPSEEK_KERNELS.mlaLayer,
    );
  });

  it("counts 0.4.3's Triton MLA layer on gfx942 where 0.5.7's AITER set stood", () => {
    expect(
      sglangDecodeFeatureKernels('deepseek_v3', 0, 'gfx942', {
        version: BUILD_MI300X_TRITON_MLA,
      }),
    ).toBe(SGLANG_GFX942_TRITON_MLA_DEEPSEEK_KERNELS);
    expect(sglangDecodeFeatureKernels('deepseek_v3', 0, 'gfx942', { version: '0.5.7' })).toBe(
      SGLANG_GFX942_DEEPSEEK_KERNELS,
    );
    expect(sglangDecodeFeatureKernels('deepseek_v3', 0, 'gfx942')).toBe(
      SGLANG_GFX942_DEEPSEEK_KERNELS,
    );
  });
});
