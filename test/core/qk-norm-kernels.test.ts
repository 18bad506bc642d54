// Qwen3's attention normalizes q and k per head before the rotary (LayerGroup.qkNorm); SGLang's decode graph runs
// those norms as kernels of their own beside the layer's usual chain (FrameworkProfile.qkNormKernels): one on the
// critical path at one sequence, two above it (q's strided view copied first). A plain attention layer copies its
// strided q above one sequence before the attention kernel (FrameworkProfile.stridedQCopyKernels).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { decodeHost, graphKernelSecondsOf } from '../../src/core/time/decode-host.js';
import { SGLANG_EAGER_CALL_SECONDS } from '../../src/core/engines/sglang/memory.js';
import { eagerPrefillHostSeconds } from '../../src/core/time/decode.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const gaps = (model: string, framework: string, batch: number) => {
  const f = { method: 'inference', framework, batch, seq: 1000, 'prompt-tokens': 500 };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return decodeHost(modelFacts(resolveModel(model)), o, defaultTimeOptions(1), null).gaps;
};

describe('per-head q/k norm kernels', () => {
  it("Qwen3's layers carry per-head q/k norms; Llama's do not", () => {
    expect(modelFacts(resolveModel('qwen3-8b')).qkNormLayers).toBe(36);
    expect(modelFacts(resolveModel('llama-3-8b')).qkNormLayers).toBe(0);
  });

  it("GLM-4.5's per-head q/k norms behind use_qk_norm count as such; GLM-4.5-Air's (flag off) do not", () => {
    // Glm4MoeAttention: q_norm/k_norm = RMSNorm(head_dim) when config.use_qk_norm (vLLM and SGLang glm4_moe.py)
    const glm = modelFacts(resolveModel('glm-4.5'));
    expect(glm.qkNormLayers).toBe(glm.attnLayers);
    expect(glm.qkNormLayers).toBe(92);
    expect(modelFacts(resolveModel('glm-4.5-air')).qkNormLayers).toBe(0);
  });

  it('SGLang pays one more kernel a layer at one sequence and two above; vLLM none', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    expect(gaps('qwen3-8b', 'sglang', 1) - gaps('qwen3-8b', 'vllm', 1)).toBeCloseTo(36 * k, 9);
    expect(gaps('qwen3-8b', 'sglang', 4) - gaps('qwen3-8b', 'vllm', 4)).toBeCloseTo(72 * k, 9);
  });

  it("above one sequence SGLang copies a plain attention layer's strided q once; with q/k norms it already has", () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    expect(gaps('llama-3-8b', 'sglang', 1)).toBeCloseTo(gaps('llama-3-8b', 'vllm', 1), 9);
    expect(gaps('llama-3-8b', 'sglang', 4) - gaps('llama-3-8b', 'vllm', 4)).toBeCloseTo(32 * k, 9);
    expect(modelFacts(resolveModel('qwen3-8b')).plainAttnLayers).toBe(0);
    expect(modelFacts(resolveModel('llama-3-8b')).plainAttnLayers).toBe(32);
  });

  it("an eager SGLang prefill launches Qwen3's q/k copies and norms (4 a layer), a plain layer's q copy (1)", () => {
    const launches = (model: string) => {
      const f = {
        method: 'inference',
        framework: 'sglang',
        batch: 4,
        seq: 1000,
        'prompt-tokens': 500,
      };
      const o = withEngineDefaults(optionsFromFlags(f), f);
      return (
        eagerPrefillHostSeconds(modelFacts(resolveModel(model)), o) / SGLANG_EAGER_CALL_SECONDS
      );
    };
    expect(launches('qwen3-8b')).toBeCloseTo(36 * (12 + 4), 6);
    expect(launches('llama-3-8b')).toBeCloseTo(32 * (12 + 1), 6);
  });
});

describe("gpt-oss's all-reduce fused with its norm on Blackwell (FrameworkProfile.allReduceNormFusion)", () => {
  const gapsAt = (cc: number, tp: number) => {
    const f = { method: 'inference', framework: 'sglang', batch: 1, gpus: tp, tp, seq: 1000 };
    const o = withEngineDefaults(optionsFromFlags(f), f);
    const m = modelFacts(resolveModel('gpt-oss-120b'));
    return { m, gaps: decodeHost(m, o, defaultTimeOptions(tp), null, undefined, 0, cc).gaps };
  };

  it('takes one norm kernel into each all-reduce on compute capability 10, none on Hopper or at TP 1', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    const { m, gaps } = gapsAt(10, 8);
    expect(gapsAt(9, 8).gaps - gaps).toBeCloseTo((2 * m.layers - 1) * k, 9);
    expect(gapsAt(10, 1).gaps).toBeCloseTo(gapsAt(9, 1).gaps, 9);
  });
});
