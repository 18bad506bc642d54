// SGLang 0.5.6.post1 launches a DeepSeek-V3/R1 extend (prefill) forward eagerly; its calls were counted layer by layer
// in the wheel for block-FP8 weights on SM100 (trtllm_mla's ragged MHA, flashinfer_trtllm's MoE, the shared expert
// apart) and on Hopper (FA3, the Triton MoE with the shared expert fused in): engines/sglang/extend-kernels.ts. The
// prefill's host time counts them, each layer's two all-reduces, less the norms FlashInfer's all-reduce fusion takes
// on SM100 up to 2048 tokens (time/graph-step.ts eagerPrefillHostSeconds).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import {
  SGLANG_DP_ATTENTION_LAYER_CALLS,
  SGLANG_DP_ATTENTION_TP_LAYER_CALLS,
  SGLANG_EP_TRITON_MOE_CALLS,
  SGLANG_GFX942_DEEPSEEK_EXTEND,
  SGLANG_SM100_DEEPSEEK_EXTEND,
  SGLANG_SM90_DEEPSEEK_EXTEND,
  sglangEagerPrefillKernels,
} from '../../src/core/engines/sglang/extend-kernels.js';
import { SGLANG_EAGER_CALL_SECONDS } from '../../src/core/engines/sglang/memory.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { eagerPrefillHostSeconds } from '../../src/core/time/decode.js';
import { denseFacts, rankOptions } from '../../src/core/time/expert-parallel.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { servingTime } from '../../src/core/time/serving-request.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

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

  it("charges SM100's layers, their all-reduces less the fused norms up to 2048 tokens, at SGLang's price a call", () => {
    const c = SGLANG_SM100_DEEPSEEK_EXTEND;
    const layers = dense * c.dense + m.moeLayers * c.moe;
    const fused = 2 * m.layers - 1;
    expect(eagerPrefillHostSeconds(m, o, 10, 500)).toBeCloseTo(
      (layers + 2 * m.layers - fused) * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
    // Above FUSE_ALLREDUCE_MAX_BATCH_SIZE each all-reduce runs apart from its norm.
    expect(eagerPrefillHostSeconds(m, o, 10, 4000)).toBeCloseTo(
      (layers + 2 * m.layers) * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
  });

  it("prices a call at sgl-project/sglang#12160's eager DeepSeek-V3 extend of one token over Hopper's count", () => {
    // 82.6 ms over 3 x 24 + 58 x 29 calls and 122 all-reduces: 44.0 µs a call, about twice an HF eager decode op's.
    expect(eagerPrefillHostSeconds(m, o, 9, 1)).toBeCloseTo(82.6e-3, 9);
    expect(SGLANG_EAGER_CALL_SECONDS).toBeCloseTo(44.03e-6, 8);
    expect(SGLANG_EAGER_CALL_SECONDS / EAGER_DECODE_OP_SECONDS).toBeGreaterThan(2);
  });

  it("charges Hopper's layers and both all-reduces (no fusion there)", () => {
    const c = SGLANG_SM90_DEEPSEEK_EXTEND;
    expect(eagerPrefillHostSeconds(m, o, 9, 500)).toBeCloseTo(
      (dense * c.dense + m.moeLayers * c.moe + 2 * m.layers) * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
  });

  it("is above the graph layer's count and under sgl-project/sglang#12160's logged 82.6 ms eager extend", () => {
    const counted = eagerPrefillHostSeconds(m, o, 10, 1);
    expect(counted).toBeGreaterThan(1.5 * eagerPrefillHostSeconds(m, o));
    expect(counted).toBeLessThan(82.6e-3);
  });

  it("keeps the graph layer's count for 16-bit weights, ROCm and other engines", () => {
    const generic = eagerPrefillHostSeconds(m, o);
    const bf16 = setup('bf16');
    expect(eagerPrefillHostSeconds(bf16.m, bf16.o, 10, 500)).toBeCloseTo(generic, 12);
    expect(eagerPrefillHostSeconds(m, o, 0, 500)).toBeCloseTo(generic, 12);
    const dp = dpSetup();
    expect(eagerPrefillHostSeconds(dp.m, dp.rank, 0, 500, undefined, dp.o)).toBeCloseTo(
      eagerPrefillHostSeconds(dp.m, dp.rank),
      12,
    );
    const vllm = setup('fp8', 'vllm');
    expect(eagerPrefillHostSeconds(vllm.m, vllm.o, 10, 500)).toBe(0);
  });

  it("reads gfx942's count (AITER's MHA prefill, block-FP8 linears and fused MoE) from the card's gfx target", () => {
    const c = SGLANG_GFX942_DEEPSEEK_EXTEND;
    expect(c).toEqual({ dense: 24, moe: 26 });
    expect(sglangEagerPrefillKernels('deepseek_v3', 0, true, undefined, 'gfx942')).toBe(c);
    expect(sglangEagerPrefillKernels('deepseek_v3', 0, true, undefined, 'gfx950')).toBeUndefined();
    expect(eagerPrefillHostSeconds(m, o, 0, 500, undefined, o, 'gfx942')).toBeCloseTo(
      (dense * c.dense + m.moeLayers * c.moe + 2 * m.layers) * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
    // DP attention at attention TP 1 with EP 8: the gathers and scatters, and the expert-id remap.
    const dp = dpSetup();
    const moe = c.moe + SGLANG_DP_ATTENTION_LAYER_CALLS + SGLANG_EP_TRITON_MOE_CALLS;
    expect(eagerPrefillHostSeconds(dp.m, dp.rank, 0, 500, undefined, dp.o, 'gfx942')).toBeCloseTo(
      (dense * (c.dense + SGLANG_DP_ATTENTION_LAYER_CALLS) + m.moeLayers * moe + 2 * m.layers) *
        SGLANG_EAGER_CALL_SECONDS,
      9,
    );
    const bf16 = setup('bf16');
    expect(
      eagerPrefillHostSeconds(bf16.m, bf16.o, 0, 500, undefined, bf16.o, 'gfx942'),
    ).toBeCloseTo(eagerPrefillHostSeconds(bf16.m, bf16.o), 12);
  });
});

// Under DP attention (SGLang's DeepSeek recipe: --tp 8 --dp 8 --enable-dp-attention, moe_a2a_backend none) each rank
// runs attention at TP 1 and every layer's MLP over all ranks' tokens: layers/communicator.py's gather and scatter
// around it add the residual's add, the gathered buffer's fill, the rank's copy in and the all-reduce's copy out, and
// the scatter's fill and copy; the Triton MoE remaps expert ids under --ep-size.
const dpSetup = (tp = 1) => {
  const f = {
    method: 'inference',
    framework: 'sglang',
    gpus: 8,
    tp,
    ep: 8,
    'dp-attention': true,
    batch: 8,
    seq: 1000,
    weights: 'fp8',
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return { o, rank: rankOptions(o), m: denseFacts(modelFacts(resolveModel('deepseek-v3'))) };
};

describe("SGLang's eager DeepSeek-V3 extend forward under DP attention, counted", () => {
  const tp1 = { dpAttention: true, attentionTp: 1, ep: 8 };

  it('adds the gather and scatter calls to each layer, and the expert-id remap to a Triton MoE layer', () => {
    const h = SGLANG_SM90_DEEPSEEK_EXTEND;
    const b = SGLANG_SM100_DEEPSEEK_EXTEND;
    const d = SGLANG_DP_ATTENTION_LAYER_CALLS;
    expect(d).toBe(6);
    expect(sglangEagerPrefillKernels('deepseek_v3', 9, true, tp1)).toEqual({
      dense: h.dense + d,
      moe: h.moe + d + SGLANG_EP_TRITON_MOE_CALLS,
    });
    // flashinfer_trtllm takes the router logits whole: no remap on SM100.
    expect(sglangEagerPrefillKernels('deepseek_v3', 10, true, tp1)).toEqual({
      dense: b.dense + d,
      moe: b.moe + d,
    });
    // Above attention TP 1 the residual is scattered back from the gathered buffer too.
    expect(sglangEagerPrefillKernels('deepseek_v3', 10, true, { ...tp1, attentionTp: 2 })).toEqual({
      dense: b.dense + SGLANG_DP_ATTENTION_TP_LAYER_CALLS,
      moe: b.moe + SGLANG_DP_ATTENTION_TP_LAYER_CALLS,
    });
    // Without expert parallelism the Triton MoE keeps its ids.
    expect(sglangEagerPrefillKernels('deepseek_v3', 9, true, { ...tp1, ep: 1 })?.moe).toBe(
      h.moe + d,
    );
    expect(sglangEagerPrefillKernels('deepseek_v3', 8, true, tp1)).toBeUndefined();
  });

  it("charges a rank's layers and two unfused all-reduces a layer over the group, on SM100 below 2048 tokens too", () => {
    const { o, rank, m } = dpSetup();
    expect(rank.dpAttention).toBeUndefined();
    const dense = m.layers - m.moeLayers;
    const at = (cc: number) => sglangEagerPrefillKernels('deepseek_v3', cc, true, tp1)!;
    for (const cc of [9, 10]) {
      const c = at(cc);
      expect(eagerPrefillHostSeconds(m, rank, cc, 500, undefined, o)).toBeCloseTo(
        (dense * c.dense + m.moeLayers * c.moe + 2 * m.layers) * SGLANG_EAGER_CALL_SECONDS,
        9,
      );
    }
    // Hopper, 61 layers at EP 8: 3 x 30 + 58 x 36 calls and 122 all-reduces, 101.3 ms; the rank read as TP 1 gave 77.2.
    expect(eagerPrefillHostSeconds(m, rank, 9, 500, undefined, o)).toBeCloseTo(
      2300 * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
    expect(eagerPrefillHostSeconds(m, rank, 9, 500)).toBeCloseTo(
      1754 * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
  });

  it("prices a rank's short prompt on H200s with the DP layout's launches (servingTime of the whole engine)", () => {
    const { o, rank, m } = dpSetup();
    const short = { ...rank, promptTokens: 256 };
    const t = defaultTimeOptions(o.gpus);
    const r = gpuRates(findGpu('h200-sxm'), t);
    const gap = servingTime(m, short, t, r, o).ttft - servingTime(m, short, t, r).ttft;
    expect(gap).toBeCloseTo((2300 - 1754) * SGLANG_EAGER_CALL_SECONDS, 9);
  });

  it('reads the attention TP of the rank: a DP-attention engine at TP 2 takes the scatter of the residual', () => {
    const { o, rank, m } = dpSetup(2);
    const c = sglangEagerPrefillKernels('deepseek_v3', 10, true, { ...tp1, attentionTp: 2 })!;
    expect(eagerPrefillHostSeconds(m, rank, 10, 500, undefined, o)).toBeCloseTo(
      ((m.layers - m.moeLayers) * c.dense + m.moeLayers * c.moe + 2 * m.layers) *
        SGLANG_EAGER_CALL_SECONDS,
      9,
    );
  });
});
