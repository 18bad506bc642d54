/**
 * The ops an eagerly run decoder layer issues, by family and engine (time/decode-host.ts eagerLayerOps;
 * FrameworkProfile.eagerLayerExtraOps): transformers' Gemma 3 layer counts its four norms and q/k norms, and on a
 * build before 4.53 its sliding layers' per-step mask; Qwen3's its q/k norms; vLLM's eager layer its q/k norms' custom
 * calls. A host-bound eager decode step grows with the count; a Llama layer keeps the default count.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { eagerLayerOps } from '../../src/core/time/decode-host.js';
import { OPS_PER_LAYER_COMPILED, OPS_PER_LAYER_EAGER } from '../../src/core/time/train-work.js';
import { hfEagerLayerExtraOps } from '../../src/core/engines/hf/eager-modules.js';
import { vllmEagerLayerExtraOps } from '../../src/core/engines/vllm/eager-ops.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type SlidingMask } from '../../src/schema/time.js';

describe("transformers' eager decoder layer by family", () => {
  it('counts Gemma norms, Qwen3 q/k norms, Phi-3 fused linears; Llama adds nothing', () => {
    expect(hfEagerLayerExtraOps('llama', false, 1)).toBe(0);
    expect(hfEagerLayerExtraOps('qwen2', false, 1)).toBe(0);
    expect(hfEagerLayerExtraOps('qwen3', false, 1)).toBe(16);
    expect(hfEagerLayerExtraOps('gemma2', false, 1)).toBe(24);
    expect(hfEagerLayerExtraOps('gemma3_text', false, 1)).toBe(44);
    expect(hfEagerLayerExtraOps('phi3', false, 1)).toBe(-1);
  });

  it("rebuilds a sliding layer's mask only where the build does so, and only on sliding layers", () => {
    expect(hfEagerLayerExtraOps('gemma3', true, 1)).toBe(44);
    expect(hfEagerLayerExtraOps('gemma3', true, 1, 'slice')).toBe(47);
    expect(hfEagerLayerExtraOps('gemma3', true, 1, 'index')).toBe(53);
    expect(hfEagerLayerExtraOps('gemma3', false, 1, 'index')).toBe(44);
    // A sliding Mistral layer has no such rebuild in its decoder layer.
    expect(hfEagerLayerExtraOps('mistral', true, 1, 'index')).toBe(0);
  });

  it("sums a model's groups: Gemma 3 4B's sliding layers carry the mask, its global ones do not", () => {
    const m = modelFacts(resolveModel('gemma-3-4b-it'));
    const sliding = m.arch.groups
      .filter((g) => g.name !== 'vision' && g.slidingWindow !== null)
      .reduce((a, g) => a + g.count, 0);
    expect(sliding).toBeGreaterThan(0);
    expect(sliding).toBeLessThan(m.layers);
    const fw = FRAMEWORKS.hf;
    const plain = eagerLayerOps(m, fw, OPS_PER_LAYER_EAGER, 1);
    expect(plain).toBe(m.layers * (OPS_PER_LAYER_EAGER + 44));
    expect(eagerLayerOps(m, fw, OPS_PER_LAYER_EAGER, 1, 'index')).toBe(plain + 9 * sliding);
  });
});

describe("vLLM's eager decoder layer", () => {
  it("adds Qwen3's q/k norms' calls (a copy of the strided view above one token) to the compiled count", () => {
    expect(vllmEagerLayerExtraOps('llama', false, 1)).toBe(0);
    expect(vllmEagerLayerExtraOps('qwen3', false, 1)).toBe(4);
    expect(vllmEagerLayerExtraOps('qwen3_moe', false, 8)).toBe(6);
    const m = modelFacts(resolveModel('qwen3-14b'));
    expect(eagerLayerOps(m, FRAMEWORKS.vllm, OPS_PER_LAYER_COMPILED, 1)).toBe(
      m.layers * (OPS_PER_LAYER_COMPILED + 4),
    );
  });

  it("SGLang and llama.cpp, whose profiles start from vLLM's, do not take its count", () => {
    expect(FRAMEWORKS.sglang.eagerLayerExtraOps).toBeUndefined();
    expect(FRAMEWORKS['llama.cpp'].eagerLayerExtraOps).toBeUndefined();
  });
});

describe('a host-bound eager decode step', () => {
  function step(model: string, mask?: SlidingMask): number {
    const gpu = 'a100-80gb-sxm';
    const f: RawFlags = {
      model,
      gpu,
      method: 'inference',
      framework: 'hf',
      weights: 'bf16',
      seq: 600,
      batch: 4,
    };
    const o = optionsFromFlags(f);
    const t = { ...timeOptionsFromFlags(f, o), slidingMaskInLayer: mask };
    return decodeStep(modelFacts(resolveModel(model)), o, t, gpuRates(findGpu(gpu), t)).stepSeconds;
  }

  it("grows with Gemma 3's layer and with its build's in-layer mask", () => {
    expect(step('gemma-3-4b-it', 'slice')).toBeGreaterThan(step('gemma-3-4b-it'));
    expect(step('gemma-3-4b-it', 'index')).toBeGreaterThan(step('gemma-3-4b-it', 'slice'));
  });

  it("leaves a Llama layer's step where the mask field does not apply", () => {
    expect(step('llama-3.1-8b', 'index')).toBe(step('llama-3.1-8b'));
  });
});
