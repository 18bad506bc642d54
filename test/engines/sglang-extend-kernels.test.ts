// SGLang 0.5.6.post1 launches a DeepSeek-V3/R1 extend (prefill) forward eagerly; its calls were counted layer by layer
// in the wheel for block-FP8 weights on SM100 (trtllm_mla's ragged MHA, flashinfer_trtllm's MoE, the shared expert
// apart) and on Hopper (FA3, the Triton MoE with the shared expert fused in): engines/sglang/extend-kernels.ts. The
// prefill's host time counts them, each layer's two all-reduces, less the norms FlashInfer's all-reduce fusion takes
// on SM100 up to 2048 tokens (time/graph-step.ts eagerPrefillHostSeconds).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import {
  SGLANG_SM100_DEEPSEEK_EXTEND,
  SGLANG_SM90_DEEPSEEK_EXTEND,
  sglangEagerPrefillKernels,
} from '../../src/core/engines/sglang/extend-kernels.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { eagerPrefillHostSeconds } from '../../src/core/time/decode.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const setup = (weights: string, framework = 'sglang') => {
  const f = { method: 'inference', framework, gpus: 8, tp: 8, batch: 1, seq: 1000, weights };
  return {
    o: withEngineDefaults(optionsFromFlags(f), f),
    m: modelFacts(resolveModel('deepseek-v3')),
  };
};

describe("SGLang's eager DeepSeek-V3 extend forward, counted", () => {
  const { m, o } = setup('fp8');
  const dense = m.layers - m.moeLayers;

  it('reads the count for block-FP8 DeepSeek-V3 on SM100 and Hopper only', () => {
    expect(sglangEagerPrefillKernels('deepseek_v3', 10, true)).toBe(SGLANG_SM100_DEEPSEEK_EXTEND);
    expect(sglangEagerPrefillKernels('deepseek_v3', 9, true)).toBe(SGLANG_SM90_DEEPSEEK_EXTEND);
    expect(sglangEagerPrefillKernels('deepseek_v3', 10, false)).toBeUndefined();
    expect(sglangEagerPrefillKernels('deepseek_v3', 8, true)).toBeUndefined();
    expect(sglangEagerPrefillKernels('qwen3_moe', 10, true)).toBeUndefined();
  });

  it("charges SM100's layers, their all-reduces less the fused norms up to 2048 tokens, at an eager op's price", () => {
    const c = SGLANG_SM100_DEEPSEEK_EXTEND;
    const layers = dense * c.dense + m.moeLayers * c.moe;
    const fused = 2 * m.layers - 1;
    expect(eagerPrefillHostSeconds(m, o, 10, 500)).toBeCloseTo(
      (layers + 2 * m.layers - fused) * EAGER_DECODE_OP_SECONDS,
      9,
    );
    // Above FUSE_ALLREDUCE_MAX_BATCH_SIZE each all-reduce runs apart from its norm.
    expect(eagerPrefillHostSeconds(m, o, 10, 4000)).toBeCloseTo(
      (layers + 2 * m.layers) * EAGER_DECODE_OP_SECONDS,
      9,
    );
  });

  it("charges Hopper's layers and both all-reduces (no fusion there)", () => {
    const c = SGLANG_SM90_DEEPSEEK_EXTEND;
    expect(eagerPrefillHostSeconds(m, o, 9, 500)).toBeCloseTo(
      (dense * c.dense + m.moeLayers * c.moe + 2 * m.layers) * EAGER_DECODE_OP_SECONDS,
      9,
    );
  });

  it("is above the graph layer's count and under sgl-project/sglang#12160's logged 82.6 ms eager extend", () => {
    const counted = eagerPrefillHostSeconds(m, o, 10, 1);
    expect(counted).toBeGreaterThan(1.5 * eagerPrefillHostSeconds(m, o));
    expect(counted).toBeLessThan(82.6e-3);
  });

  it("keeps the graph layer's count for 16-bit weights, ROCm, DP attention and other engines", () => {
    const generic = eagerPrefillHostSeconds(m, o);
    const bf16 = setup('bf16');
    expect(eagerPrefillHostSeconds(bf16.m, bf16.o, 10, 500)).toBeCloseTo(generic, 12);
    expect(eagerPrefillHostSeconds(m, o, 0, 500)).toBeCloseTo(generic, 12);
    expect(eagerPrefillHostSeconds(m, { ...o, dpAttention: true }, 10, 500)).toBeCloseTo(
      generic,
      12,
    );
    const vllm = setup('fp8', 'vllm');
    expect(eagerPrefillHostSeconds(vllm.m, vllm.o, 10, 500)).toBe(0);
  });
});
