// vLLM's decode graph runs an MLA layer's extra projection, norms and absorbed bmm's, a shared expert's MLP, DeepSeek's
// biased grouped top-k and each block-FP8 linear's activation pad and quantization as kernels of their own
// (FrameworkProfile.decodeFeatureKernels, engines/vllm/decode-kernels.ts); each costs a graph kernel's gap.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_DECODE_FEATURE_KERNELS as K } from '../../src/core/engines/vllm/decode-kernels.js';
import { blockFp8Gemms } from '../../src/core/time/block-fp8.js';
import {
  decodeFeatureKernels,
  decodeHost,
  graphKernelSecondsOf,
} from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const optionsOf = (framework: string, weights?: string) => {
  const f = {
    method: 'inference',
    framework,
    batch: 4,
    seq: 1000,
    'prompt-tokens': 500,
    gpus: 8,
    tp: 8,
    ...(weights ? { weights } : {}),
  };
  return withEngineDefaults(optionsFromFlags(f), f);
};

describe('decode kernels of MLA, shared experts, biased routers and block-FP8 activations', () => {
  const dsv3 = resolveModel('deepseek-v3');
  const m = modelFacts(dsv3);

  it('DeepSeek-V3 has 61 MLA layers and 58 MoE layers, each with a shared expert; Qwen3-30B-A3B none', () => {
    expect([m.mlaLayers, m.moeLayers, m.sharedExpertLayers]).toEqual([61, 58, 58]);
    const q = modelFacts(resolveModel('qwen3-30b-a3b'));
    expect([q.mlaLayers, q.sharedExpertLayers]).toEqual([0, 0]);
  });

  it("counts vLLM's kernels for DeepSeek-V3 in block FP8 on Hopper, without the FP8 ones on Ampere", () => {
    const o = optionsOf('vllm', 'fp8');
    const linears = blockFp8Gemms(dsv3, 8).reduce((a, g) => a + g.count, 0);
    // 3 dense layers and 58 MoE layers, five block-FP8 GEMMs each (fused q_a/kv_a, q_b, o, the MLP's gate_up, down).
    expect(linears).toBe(61 * 5);
    const common = 61 * K.mlaLayer + 58 * K.sharedExpert + 58 * K.biasedRouter.kernels;
    expect(decodeFeatureKernels(m, o, 9.0)).toBe(
      common + linears * (K.blockFp8Linear + K.blockFp8PadSm90) + 58 * K.blockFp8Moe,
    );
    expect(decodeFeatureKernels(m, o, 8.0)).toBe(common);
    expect(decodeFeatureKernels(m, optionsOf('vllm'), 9.0)).toBe(common);
  });

  it('counts the activation quantization on Blackwell and Ada too, the SM90 row pad only on cc 9.0', () => {
    const o = optionsOf('vllm', 'fp8');
    const linears = blockFp8Gemms(dsv3, 8).reduce((a, g) => a + g.count, 0);
    const common = decodeFeatureKernels(m, optionsOf('vllm'), 10.0);
    expect(K.blockFp8Linear).toBe(1);
    expect(K.blockFp8PadSm90).toBe(2);
    for (const cc of [10.0, 8.9])
      expect(decodeFeatureKernels(m, o, cc)).toBe(
        common + linears * K.blockFp8Linear + 58 * K.blockFp8Moe,
      );
    expect(decodeFeatureKernels(m, o, 9.0) - decodeFeatureKernels(m, o, 10.0)).toBe(
      linears * K.blockFp8PadSm90,
    );
    // AMD GPUs (cc 0) take their own ROCm path.
    expect(decodeFeatureKernels(m, o, 0)).toBe(common);
  });

  it('GLM-4.5 pays its shared experts and biased router; Llama-3-8B and Qwen3-30B-A3B nothing', () => {
    const g = modelFacts(resolveModel('glm-4.5'));
    expect(decodeFeatureKernels(g, optionsOf('vllm'), 9.0)).toBe(
      g.moeLayers * (K.sharedExpert + K.biasedRouter.kernels),
    );
    for (const id of ['llama-3-8b', 'qwen3-30b-a3b'])
      expect(decodeFeatureKernels(modelFacts(resolveModel(id)), optionsOf('vllm'), 9.0)).toBe(0);
  });

  // vLLM's ROCm blockwise linears quantize per token group before each GEMM (the v0.8.5 wheel's
  // apply_w8a8_block_fp8_linear; vllm-project/vllm@007d5005 W8A8BlockFp8LinearOp._run_triton and _run_aiter), and its
  // Triton fused_moe quantizes both GEMMs' inputs; AITER's fused MoE quantizes inside its own call.
  it('counts the activation quantization on gfx942 and gfx950, the MoE pair only without AITER', () => {
    const o = optionsOf('vllm', 'fp8');
    const linears = blockFp8Gemms(dsv3, 8).reduce((a, g) => a + g.count, 0);
    const common = decodeFeatureKernels(m, optionsOf('vllm'), 0, undefined, 'gfx942');
    expect(common).toBe(decodeFeatureKernels(m, o, 0));
    expect(K.rocmBlockFp8Targets).toEqual(['gfx942', 'gfx950']);
    const off = defaultTimeOptions(8);
    const on = { ...off, rocmAiter: true };
    for (const gfx of ['gfx942', 'gfx950']) {
      expect(decodeFeatureKernels(m, o, 0, off, gfx)).toBe(
        common + linears * K.blockFp8Linear + 58 * K.blockFp8Moe,
      );
      expect(decodeFeatureKernels(m, o, 0, on, gfx)).toBe(common + linears * K.blockFp8Linear);
    }
    // A target the table does not list (MI250X, no FP8), 16-bit weights and SGLang's table: none.
    expect(decodeFeatureKernels(m, o, 0, off, 'gfx90a')).toBe(common);
    expect(decodeFeatureKernels(m, optionsOf('vllm'), 0, off, 'gfx942')).toBe(common);
    expect(decodeFeatureKernels(m, optionsOf('sglang', 'fp8'), 0, off, 'gfx942')).toBe(
      decodeFeatureKernels(m, optionsOf('sglang'), 0, off, 'gfx942'),
    );
  });

  it("adds them to vLLM's graph gaps, not SGLang's", () => {
    const o = optionsOf('vllm', 'fp8');
    const gaps = (opts: typeof o) =>
      decodeHost(m, opts, defaultTimeOptions(8), null, undefined, 0, 9.0).gaps;
    const k = graphKernelSecondsOf(FRAMEWORKS.vllm, undefined);
    expect(decodeFeatureKernels(m, optionsOf('sglang', 'fp8'), 9.0)).toBe(0);
    expect(gaps(o) - gaps(optionsOf('sglang', 'fp8'))).toBeCloseTo(
      decodeFeatureKernels(m, o, 9.0) * k,
      9,
    );
  });
});
