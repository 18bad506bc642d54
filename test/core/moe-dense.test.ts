/**
 * MoE dispatch per model class: transformers' Llama-4 text MoE (Llama4TextMoe) runs every token through
 * every routed expert, the router score multiplied into its input, so its expert FLOPs are the dense
 * model's; other MoE classes keep the engine's grouped dispatch.
 */
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { groupedRowBytes } from '../../src/core/time/grouped-mm.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const h100 = findGpu('h100-sxm');
const qlora = (framework: string) =>
  optionsFromFlags({ method: 'qlora', weights: 'nf4', batch: 1, seq: 2048, framework });

describe('MoE dispatch per model class', () => {
  it('Llama-4 Scout on the transformers engines runs its 16 routed experts densely', () => {
    const arch = resolveModel('llama-4-scout-17b-16e');
    const o = qlora('hf');
    const t = defaultTimeOptions(1);
    const m = modelFacts(arch);
    expect(m.experts).toBe(16);
    const dense = trainWork(m, o, t);
    const grouped = trainWork(m, o, t, 'grouped');
    expect(dense.moeDispatch).toBe('dense');
    // 2 FLOPs x 2,048 tokens x the 15 experts a token is not routed to x one expert's weights x MoE layers.
    const extra = 2 * 2048 * (m.experts - m.topK) * m.expertWeightsPerLayer * m.moeLayers;
    expect(dense.fwdGemmFlops - grouped.fwdGemmFlops).toBeCloseTo(extra, -6);
    // QLoRA: frozen experts, input gradients only: the same again in backward.
    expect(dense.bwdGemmFlops - grouped.bwdGemmFlops).toBeCloseTo(extra, -6);
    const r = gpuRates(h100, t);
    expect(trainStep(dense, r)).toBeGreaterThan(2 * trainStep(grouped, r));
    expect(buildEstimate(arch, o, h100).time!.moe?.dispatch).toBe('dense');
  });

  it("a dense block's per-expert copies and activations: 4 E x hidden + 5 (E - topK) x width per token", () => {
    const arch = resolveModel('llama-4-scout-17b-16e');
    const m = modelFacts(arch);
    const t = defaultTimeOptions(1);
    const eager = qlora('hf');
    // Against the grouped dispatch less its own wrapper's routed-row passes (grouped-mm.ts groupedRowBytes).
    const grouped = (o: typeof eager) => {
      const g = trainWork(m, o, t, 'grouped');
      return g.fwdElemBytes - groupedRowBytes(m, o, g.tokens, m.layers, true);
    };
    const extra = (o: typeof eager) => trainWork(m, o, t).fwdElemBytes - grouped(o);
    // bf16: 2 bytes; 2,048 tokens; every MoE layer.
    const perToken = (hidden: number, act: number) =>
      hidden * m.experts * m.hidden + act * (m.experts - m.topK) * m.expertFfn;
    expect(extra(eager)).toBeCloseTo(2048 * m.moeLayers * 2 * perToken(4, 5), -3);
    // Compiled: the repeat and the score product fuse into one write, silu * mul into three passes.
    expect(extra({ ...eager, compile: true })).toBeCloseTo(
      2048 * m.moeLayers * 2 * perToken(2, 3),
      -3,
    );
  });

  it('other MoE classes, and Llama-4 on Unsloth, keep the engine dispatch', () => {
    const qwen = buildEstimate(resolveModel('qwen3-30b-a3b'), qlora('hf'), h100);
    expect(qwen.time!.moe?.dispatch).toBe('grouped');
    const unsloth = buildEstimate(resolveModel('llama-4-scout-17b-16e'), qlora('unsloth'), h100);
    expect(unsloth.time!.moe?.dispatch).toBe('grouped');
  });
});
