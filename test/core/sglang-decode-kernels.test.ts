// SGLang's decode graph on SM100 runs DeepSeek-V3/R1's MLA extras, the add after its dual-stream shared expert, each
// block-FP8 linear's activation quantization and the trtllm MoE's input preparation as kernels of their own
// (engines/sglang/decode-kernels.ts), and fuses each all-reduce with the norm after it (allReduceNormFusion).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import {
  SGLANG_GFX942_DEEPSEEK_KERNELS as A,
  SGLANG_GFX942_DSA_KERNELS as D,
  SGLANG_MINIMAX_M2_KERNELS as M,
  SGLANG_QWEN3_NEXT_KERNELS as N,
  SGLANG_SM100_DEEPSEEK_KERNELS as K,
  SGLANG_SM100_GLM4_MOE_KERNELS as G,
  SGLANG_SM100_QWEN3_MOE_KERNELS as Q,
} from '../../src/core/engines/sglang/decode-kernels.js';
import { blockFp8Gemms } from '../../src/core/time/block-fp8.js';
import {
  attentionTpAllReduces,
  decodeFeatureKernels,
  decodeHost,
  graphKernelSecondsOf,
  trtllmMoe16,
} from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { minimaxM2, minimaxServedAt, qkNormAdded } from '../helpers/minimax-m2.js';

const optionsOf = (weights?: string) => {
  const f = {
    method: 'inference',
    framework: 'sglang',
    batch: 1,
    seq: 1000,
    'prompt-tokens': 500,
    gpus: 8,
    tp: 8,
    ...(weights ? { weights } : {}),
  };
  return withEngineDefaults(optionsFromFlags(f), f);
};

describe("SGLang's DeepSeek-V3 decode kernels on SM100", () => {
  const dsv3 = resolveModel('deepseek-v3');
  const m = modelFacts(dsv3);

  it('counts the MLA extras, the shared-expert add and the FP8 kernels, without the shared expert linears', () => {
    const all = blockFp8Gemms(dsv3, 8).reduce((a, g) => a + g.count, 0);
    const beside = blockFp8Gemms(dsv3, 8, false, true).reduce((a, g) => a + g.count, 0);
    // 61 layers of fused q_a/kv_a, q_b and o; the 3 dense layers' MLP (2); the 58 shared experts' 2 run beside.
    expect([all, beside]).toEqual([61 * 5, 61 * 3 + 3 * 2]);
    const common = 61 * K.mlaLayer + 58 * K.sharedExpert;
    expect(decodeFeatureKernels(m, optionsOf('fp8'), 10.0)).toBe(
      common + beside * K.blockFp8Linear + 58 * K.blockFp8Moe,
    );
    expect(decodeFeatureKernels(m, optionsOf(), 10.0)).toBe(common);
  });

  it('counts nothing where the path was not read: Hopper, ROCm but gfx942, or a model off trtllm_mla', () => {
    // DeepSeek-V3's router takes moe_fused_gate on any CUDA card (256 experts, 32 a group): nothing beyond the chain.
    for (const cc of [9.0, 8.0, 0]) expect(decodeFeatureKernels(m, optionsOf('fp8'), cc)).toBe(0);
    expect(decodeFeatureKernels(m, optionsOf('fp8'), 0, undefined, 'gfx950')).toBe(0);
    const g = modelFacts(resolveModel('glm-4.5'));
    // On Hopper only GLM-4.5's torch router is counted (topk.py has no compute-capability check).
    expect(decodeFeatureKernels(g, optionsOf(), 9.0)).toBe(6 * g.moeLayers);
    expect(decodeFeatureKernels(g, optionsOf(), 0, undefined, 'gfx942')).toBe(0);
  });

  it("counts gfx942's MLA layer: both latent norms, q_b, the two bmm's, two torch.cat's and the flatten copy", () => {
    expect(A.mlaLayer).toBe(8);
    // Only the MLA extras: the block-FP8 activation kernels are counted where the blockwise CUDA path runs.
    expect(decodeFeatureKernels(m, optionsOf('fp8'), 0, undefined, 'gfx942')).toBe(61 * 8);
  });

  it('fuses the all-reduces with their norms on SM100 only, and adds the counted kernels to the graph gaps', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    const gaps = (cc: number) =>
      decodeHost(m, optionsOf('fp8'), defaultTimeOptions(8), null, undefined, 0, cc).gaps;
    const extra = decodeFeatureKernels(m, optionsOf('fp8'), 10.0);
    expect(gaps(10.0) - gaps(9.0)).toBeCloseTo((extra - (2 * m.layers - 1)) * k, 9);
  });
});

// SGLang 0.5.13.post1 serves DeepSeek Sparse Attention models on gfx942 through its dsa backend with tilelang decode:
// the MLA layer's extras and each layer's indexer run on the step's one stream (engines/sglang/decode-kernels.ts).
describe("SGLang's DeepSeek Sparse Attention decode kernels on gfx942", () => {
  const glm = modelFacts(resolveModel('calibration/configs/zai-org__GLM-5.1-FP8.json'));

  it('counts every GLM-5.1 layer an indexer of its own, DeepSeek-V3 none', () => {
    expect([glm.layers, glm.mlaLayers, glm.indexerLayers]).toEqual([78, 78, 78]);
    expect(modelFacts(resolveModel('deepseek-v3')).indexerLayers).toBe(0);
  });

  it("counts the MLA layer's 7 extras and the indexer's 12 kernels a layer on gfx942 only", () => {
    expect([D.mlaLayer, D.indexerLayer]).toEqual([7, 12]);
    expect(decodeFeatureKernels(glm, optionsOf('fp8'), 0, undefined, 'gfx942')).toBe(78 * (7 + 12));
    expect(decodeFeatureKernels(glm, optionsOf('fp8'), 0, undefined, 'gfx950')).toBe(0);
    expect(decodeFeatureKernels(glm, optionsOf('fp8'), 9.0)).toBe(0);
  });

  it('adds them to the graph gaps of a gfx942 decode step', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    const gaps = (gfx: string) =>
      decodeHost(glm, optionsOf('fp8'), defaultTimeOptions(8), null, undefined, 0, 0, gfx).gaps;
    expect(gaps('gfx942') - gaps('gfx950')).toBeCloseTo(78 * 19 * k, 9);
  });
});

// SGLang 0.5.8.post1 runs Qwen3-MoE's 16-bit experts through FlashInfer's trtllm_bf16_moe on SM100 (2 kernels fewer an
// MoE layer than the Triton chain, no Triton K-loop chain), GLM-4.5/4.6's shared expert beside its routed experts, and
// fuses both models' all-reduces with their norms.
describe("SGLang's Qwen3-MoE and GLM-4.5 decode kernels on SM100", () => {
  const q = modelFacts(resolveModel('qwen3-235b-a22b'));
  const g = modelFacts(resolveModel('glm-4.5'));

  it('counts 2 fewer kernels a Qwen3-MoE layer for 16-bit experts on SM100 only', () => {
    expect(Q.trtllmMoe16).toBe(-2);
    expect(decodeFeatureKernels(q, optionsOf(), 10.0)).toBe(q.moeLayers * -2);
    expect(decodeFeatureKernels(q, optionsOf('fp8'), 10.0)).toBe(0);
    expect(decodeFeatureKernels(q, optionsOf(), 9.0)).toBe(0);
    expect(trtllmMoe16(q, optionsOf(), 10.0)).toBe(true);
    expect(trtllmMoe16(q, optionsOf(), 9.0)).toBe(false);
  });

  it('keeps the Triton chain for a build that ran it (TimeOptions.tritonMoe16)', () => {
    const t = { ...defaultTimeOptions(8), tritonMoe16: true };
    expect(decodeFeatureKernels(q, optionsOf(), 10.0, t)).toBe(0);
    expect(trtllmMoe16(q, optionsOf(), 10.0, t)).toBe(false);
  });

  it("counts GLM-4.5's shared-expert add and its torch router per MoE layer on SM100", () => {
    // 160 routed experts: biased_grouped_topk_impl at every release (layers/moe/topk.py, sglang 0.5.2 to 0.5.8.post1)
    expect(g.experts).toBe(160);
    expect(G.torchBiasedRouter?.kernels).toBe(6);
    expect(G.torchBiasedRouter?.fusedPow2From).toBe('0.5.8');
    expect(decodeFeatureKernels(g, optionsOf(), 10.0)).toBe(g.sharedExpertLayers + 6 * g.moeLayers);
    expect(g.sharedExpertLayers).toBeGreaterThan(0);
  });

  it("takes GLM-4.5-Air's 128 experts through the fused gate from sglang 0.5.8 on, the torch router before", () => {
    const air = modelFacts(resolveModel('glm-4.5-air'));
    const at = (engineVersion?: string) =>
      decodeFeatureKernels(air, optionsOf(), 10.0, { ...defaultTimeOptions(8), engineVersion });
    expect(air.experts).toBe(128);
    expect(at('0.5.1+main-2025-08-28') - at('0.5.8.post1')).toBe(6 * air.moeLayers);
    expect(at('0.5.7')).toBe(at('0.5.1'));
    expect(at(undefined)).toBe(at('0.5.8'));
    expect(at('0.5.8')).toBe(air.sharedExpertLayers);
  });

  it('counts the torch router exactly where no power-of-two count of at most 384 fits a gate (newest release)', () => {
    const base = decodeFeatureKernels(g, optionsOf(), 10.0) - 6 * g.moeLayers;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), (experts) => {
        // One group: moe_fused_gate up to 32, fused_topk_deepseek up to 384, Kimi K2's gate at exactly 384.
        const pow2 = (experts & (experts - 1)) === 0;
        const n = decodeFeatureKernels({ ...g, experts }, optionsOf(), 10.0);
        expect(n - base).toBe((pow2 && experts <= 384) || experts === 384 ? 0 : 6 * g.moeLayers);
      }),
    );
  });

  it('fuses their all-reduces with the norms on SM100 unless the build did not', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    const gaps = (t = defaultTimeOptions(8)) =>
      decodeHost(g, optionsOf(), t, null, undefined, 0, 10.0).gaps;
    const off = gaps({ ...defaultTimeOptions(8), noAllReduceNormFusion: true });
    expect(off - gaps()).toBeCloseTo((2 * g.layers - 1) * k, 9);
  });
});

// gpt-oss's MXFP4 experts through trtllm_fp4_block_scale_moe (6 kernels an MoE layer against the Triton chain's 7) and
// NVFP4 Llama's per-linear FP4 activation quantization (4 a layer), on SM100.
describe("SGLang's gpt-oss and NVFP4 Llama decode kernels on SM100", () => {
  it('counts one kernel fewer a gpt-oss MoE layer at MXFP4 on SM100 only', () => {
    const g = modelFacts(resolveModel('gpt-oss-120b'));
    expect(decodeFeatureKernels(g, optionsOf('mxfp4'), 10.0)).toBe(-g.moeLayers);
    expect(decodeFeatureKernels(g, optionsOf('mxfp4'), 9.0)).toBe(0);
  });

  it("counts NVFP4 Llama's four activation quantizations a layer, and none at 16 bits", () => {
    const l = modelFacts(resolveModel('llama-3.1-70b'));
    expect(decodeFeatureKernels(l, optionsOf('nvfp4'), 10.0)).toBe(4 * l.layers);
    expect(decodeFeatureKernels(l, optionsOf(), 10.0)).toBe(0);
    expect(decodeFeatureKernels(l, optionsOf('nvfp4'), 12.0)).toBe(0);
  });
});

// SGLang 0.5.2's Qwen3-Next decode: each Gated DeltaNet layer's gated RMSNorm beyond the attention chain, each gated
// attention layer's gate (copy, sigmoid, multiply), and each MoE layer's add after the dual-stream shared expert and
// moe_align_block_size's fill of its padded buffer at 512 experts (engines/sglang/decode-kernels.ts).
describe("SGLang's Qwen3-Next decode kernels on CUDA", () => {
  const m = modelFacts(resolveModel('qwen3-next-80b-a3b'));

  it('counts 36 recurrent layers, 12 gated attention layers and 48 MoE layers, on any CUDA card, not on ROCm', () => {
    expect([m.layers - m.attnLayers, m.attnLayers, m.moeLayers, m.sharedExpertLayers]).toEqual([
      36, 12, 48, 48,
    ]);
    expect([N.recurrentLayer, N.gatedAttentionLayer, N.sharedExpert, N.moeLayer]).toEqual([
      1, 3, 1, 1,
    ]);
    const count = 36 * 1 + 12 * 3 + 48 * (1 + 1);
    for (const cc of [8.0, 9.0, 10.0]) expect(decodeFeatureKernels(m, optionsOf(), cc)).toBe(count);
    expect(decodeFeatureKernels(m, optionsOf(), 0, undefined, 'gfx942')).toBe(0);
  });

  it('adds them to the graph gaps, and leaves Qwen3-MoE on Hopper uncounted', () => {
    const k = graphKernelSecondsOf(FRAMEWORKS.sglang, undefined);
    const base = { ...m, modelType: 'qwen3_moe' };
    const gaps = (f: typeof m) =>
      decodeHost(f, optionsOf(), defaultTimeOptions(8), null, undefined, 0, 9.0).gaps;
    expect(decodeFeatureKernels(base, optionsOf(), 9.0)).toBe(0);
    expect(gaps(m) - gaps(base)).toBeCloseTo(decodeFeatureKernels(m, optionsOf(), 9.0) * k, 9);
  });
});

// MiniMax-M2's q and k norms span every head: under attention TP each layer sums its shard's squares, all-reduces the
// two fp32 sums a token and applies them, two Triton kernels and one all-reduce (sgl-project/sglang#14416;
// engines/sglang/decode-kernels.ts).
describe("SGLang's MiniMax-M2 full-width q/k norm", () => {
  const m = minimaxM2();
  const at = (tp: number) => minimaxServedAt('sglang', tp);

  it('counts two kernels an attention layer on any GPU, and one all-reduce under TP', () => {
    expect(m.attnLayers).toBe(62);
    expect([M.attentionLayer, M.attentionTpAllReduces]).toEqual([2, 1]);
    for (const cc of [8.0, 9.0, 10.0]) expect(decodeFeatureKernels(m, at(4), cc)).toBe(124);
    expect(decodeFeatureKernels(m, at(4), 0, undefined, 'gfx942')).toBe(124);
    expect(attentionTpAllReduces(m, at(4), { cc: 0, gfx: 'gfx942' })).toBe(62);
    expect(attentionTpAllReduces(m, at(1), { cc: 9 })).toBe(0);
  });

  it("prices each all-reduce at the statistic's small message", () => {
    const { added, layerCall } = qkNormAdded(m, 'sglang', 'mi300x');
    // 62 calls, each at least the all-reduce's latency and well under a hidden-state all-reduce's.
    expect(added).toBeGreaterThan(62 * 1e-6);
    expect(added).toBeLessThanOrEqual(62 * layerCall);
  });
});
