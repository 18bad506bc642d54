// LoRA on a transformers 5 MoE's fused experts under PEFT (lora.ParamWrapper through target_parameters): the
// trainable count follows what PEFT 0.21.2 builds on transformers 5.14.1 (per-expert rank-r pairs, gate_up_proj at
// rank 2r and the router adapted where PEFT remaps a v4-style config), as get_nb_trainable_parameters() reported it
// for the catalog configs (test/fixtures/launch-libs/peft-moe-count.json, scripts/check-launch-libs/peft_moe_count.py);
// Unsloth, whose kernels run the adapters ParamWrapper creates, is counted the same way without remap.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateMemory } from '../../src/core/memory/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { fusedExpertLora } from '../../src/core/memory/setup.js';
import { loraParams, trainableSet } from '../../src/core/model/trainable.js';
import { deltaWork } from '../../src/core/time/param-wrapper.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions, type Framework } from '../../src/schema/estimate.js';

interface Probe {
  versions: Record<string, string>;
  rank: number;
  models: Record<
    string,
    { modelType: string; 'all-linear': { trainable: number }; names: { trainable: number } }
  >;
}
const probe = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/peft-moe-count.json', import.meta.url), 'utf8'),
) as Probe;

const SEVEN: EstimateOptions['loraTargets'] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
const opts = (framework: Framework, allLinear: boolean): EstimateOptions => ({
  ...defaultOptions('lora'),
  framework,
  loraRank: probe.rank,
  loraAllLinear: allLinear,
  loraTargets: SEVEN,
});
const count = (id: string, framework: Framework, allLinear: boolean): number => {
  const arch = resolveModel(id);
  const o = opts(framework, allLinear);
  const fw = FRAMEWORKS[framework];
  return loraParams(
    arch,
    trainableSet(o),
    o.loraRank,
    fw.embedTargetsTrainFully,
    fusedExpertLora(fw, arch),
  );
};

describe('LoRA parameters on fused experts under PEFT ParamWrapper', () => {
  it('the probe ran at the pinned versions', () => {
    expect(probe.versions).toMatchObject({ transformers: '5.14.1', peft: '0.21.2' });
  });

  for (const [id, m] of Object.entries(probe.models))
    it(`${id} all-linear at rank ${probe.rank}: PEFT's ${m['all-linear'].trainable}`, () => {
      for (const fw of ['hf', 'deepspeed'] as const)
        expect(count(id, fw, true)).toBe(m['all-linear'].trainable);
    });

  // The probe listed deepseek's k/v as k_proj/v_proj (absent there); the launcher writes kv_a_proj_with_mqa/kv_b_proj.
  for (const id of ['qwen3-30b-a3b', 'mixtral-8x7b-v0.1', 'gpt-oss-20b', 'olmoe-1b-7b-0924'])
    it(`${id} with the seven projections named: no router, PEFT's count`, () => {
      expect(count(id, 'hf', false)).toBe(probe.models[id]!.names.trainable);
    });

  it('Qwen3-30B-A3B all-linear: router 1.67M, gate_up at 2r (704.6M), down 276.8M, attention 13.4M', () => {
    // Hand formula from peft 0.21.2 ParamWrapper.update_layer: E·r·(in + out) per 3-D parameter; 48 layers,
    // hidden 2048, 128 experts of width 768, q 4096 and k/v 512 wide.
    const L = 48,
      H = 2048,
      I = 768,
      E = 128,
      r = 16;
    const gateUp = E * 2 * r * (H + 2 * I);
    const down = E * r * (I + H);
    const router = r * (H + E);
    const attn = r * (H + 4096) * 2 + r * (H + 512) * 2;
    expect(count('qwen3-30b-a3b', 'hf', true)).toBe(L * (gateUp + down + router + attn));
  });

  // Unsloth 2026.10.9 sets target_parameters on fused experts (models/_utils.py get_moe_target_parameters:11023-11109)
  // and skips PEFT's remap, so PEFT's ParamWrapper creates gate_up_proj and down_proj adapters at rank r: E·r·(in + out)
  // each, gate_up_proj one parameter (in = hidden, out = 2I); no router adapter. Its kernels skip the ΔW term.
  it('Unsloth Qwen3-30B-A3B LoRA: gate_up_proj one rank-r ParamWrapper per expert, not gate and up apart', () => {
    const L = 48,
      H = 2048,
      I = 768,
      E = 128,
      r = 16;
    const gateUp = E * r * (H + 2 * I);
    const down = E * r * (I + H);
    const attn = r * (H + 4096) * 2 + r * (H + 512) * 2;
    expect(count('qwen3-30b-a3b', 'unsloth', false)).toBe(L * (gateUp + down + attn));
    // Gate and up as two adapters would add E·r·H per MoE layer.
    expect(L * (2 * E * r * (H + I) + down + attn) - count('qwen3-30b-a3b', 'unsloth', false)).toBe(
      L * E * r * H,
    );
  });

  it("Unsloth Qwen3-30B-A3B at rank 32: the 1,285,029,888 trainable its notebook's log prints", () => {
    // unslothai/notebooks@8081c7e4 nb/Qwen3_MoE.ipynb, get_peft_model r 32 on q,k,v,o,gate,up,down (Unsloth 2026.2.1).
    const arch = resolveModel('qwen3-30b-a3b');
    const o = { ...opts('unsloth', false), loraRank: 32 };
    const fw = FRAMEWORKS.unsloth;
    const n = loraParams(
      arch,
      trainableSet(o),
      32,
      fw.embedTargetsTrainFully,
      fusedExpertLora(fw, arch),
    );
    expect(n).toBe(1_285_029_888);
  });

  it('Unsloth gpt-oss-20b LoRA: 24 layers of 32 experts, hidden = I = 2880, q 4096 and k/v 512 wide', () => {
    const L = 24,
      H = 2880,
      I = 2880,
      E = 32,
      r = 16;
    const gateUp = E * r * (H + 2 * I);
    const down = E * r * (I + H);
    const attn = r * (H + 4096) * 2 + r * (H + 512) * 2;
    expect(count('gpt-oss-20b', 'unsloth', false)).toBe(L * (gateUp + down + attn));
  });

  it("Unsloth's expert adapters hold no ParamWrapper ΔW memory or time", () => {
    expect(FRAMEWORKS.unsloth.expertAdapters).toBeUndefined();
    expect(FRAMEWORKS.unsloth.expertLoraCount).toBe('param-wrapper');
    const arch = resolveModel('qwen3-30b-a3b');
    const b = estimateMemory(arch, opts('unsloth', false)).perGpu.breakdown;
    expect(b.adapters).toBe(4 * count('qwen3-30b-a3b', 'unsloth', false));
  });

  it('the estimate holds the adapters, their gradients and AdamW states at that count', () => {
    const arch = resolveModel('qwen3-30b-a3b');
    const b = estimateMemory(arch, opts('hf', true)).perGpu.breakdown;
    const n = probe.models['qwen3-30b-a3b']!['all-linear'].trainable;
    expect(b.adapters).toBe(4 * n);
    expect(b.gradients).toBe(4 * n);
  });

  it("ParamWrapper's ΔW einsum runs gate_up_proj at rank 2r where PEFT remaps the targets", () => {
    const arch = resolveModel('qwen3-30b-a3b');
    const m = modelFacts(arch);
    const o = opts('hf', true);
    const d = deltaWork(m, o, true, 1, m.moeLayers, 2);
    const H = 2048,
      I = 768,
      E = 128,
      r = 16;
    const perLayer = E * (2 * r * 2 * I * H + r * I * H);
    expect(d.fwdFlops).toBeCloseTo(2 * perLayer * m.moeLayers, -3);
    // gpt-oss is not remapped: every adapted expert weight at rank r.
    const g = modelFacts(resolveModel('gpt-oss-20b'));
    const dg = deltaWork(g, o, true, 1, g.moeLayers, 2);
    expect(dg.fwdFlops).toBeCloseTo(2 * r * g.experts * g.expertWeightsPerLayer * g.moeLayers, -3);
  });
});
