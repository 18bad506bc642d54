// LoRA on a checkpoint's fused linears: PEFT matches module names, so a fused q/k/v or gate/up nn.Linear takes one
// A/B pair, r x (in + the summed out) (LoRA §4, arXiv:2106.09685), whichever of its roles the targets name. Module
// shapes from transformers 5.14.1: Phi3Attention.qkv_proj and Phi3MLP.gate_up_proj (modeling_phi3.py), GPT2Attention
// c_attn (Conv1D, modeling_gpt2.py), GPTBigCodeAttention.c_attn (modeling_gpt_bigcode.py), query_key_value of
// GPT-NeoX, Falcon and BLOOM (modeling_gpt_neox.py, modeling_falcon.py, modeling_bloom.py), GlmMLP / Glm4MLP
// gate_up_proj (modeling_glm.py, modeling_glm4.py).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loraTargetModules } from '../../src/core/launch/modules.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { trainableParams } from '../../src/core/memory/setup.js';
import { loraParams, trainableSet, withoutFusedModules } from '../../src/core/model/trainable.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/index.js';
import { consolidatedSaveSeconds } from '../../src/core/time/model-save.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import '../../src/core/engines/registry.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions, type Framework } from '../../src/schema/estimate.js';

const R = 16;
const SEVEN: EstimateOptions['loraTargets'] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
const opts = (targets: EstimateOptions['loraTargets'], allLinear = false): EstimateOptions => ({
  ...defaultOptions('lora'),
  loraRank: R,
  loraTargets: targets,
  loraAllLinear: allLinear,
});
const count = (id: string, targets: EstimateOptions['loraTargets'], allLinear = false): number =>
  loraParams(resolveModel(id), trainableSet(opts(targets, allLinear)), R, false);
/** One adapter pair per module: r x (in + out), over the layers. */
const pairs = (layers: number, modules: [number, number][]): number =>
  layers * modules.reduce((a, [i, o]) => a + R * (i + o), 0);

describe('LoRA on fused checkpoint linears counts one pair per module', () => {
  it('Phi-3-mini all-linear: qkv_proj 3072 -> 9216, o_proj, gate_up_proj 3072 -> 16384, down_proj', () => {
    expect(count('phi-3-mini-4k-instruct', SEVEN, true)).toBe(
      pairs(32, [
        [3072, 9216],
        [3072, 3072],
        [3072, 16384],
        [8192, 3072],
      ]),
    );
  });

  it('Phi-4 q,v: one qkv_proj pair (5120 -> 40 x 128 + 2 x 10 x 128)', () => {
    expect(count('phi-4', ['q', 'v'])).toBe(pairs(40, [[5120, 5120 + 2 * 1280]]));
  });

  it('GPT-2 q,k,v,o: c_attn (Conv1D 768 -> 2304) and attn.c_proj', () => {
    expect(count('gpt2', ['q', 'k', 'v', 'o'])).toBe(
      pairs(12, [
        [768, 2304],
        [768, 768],
      ]),
    );
  });

  it('StarCoder (GPT-BigCode, multi-query) q,v: c_attn 6144 -> 6144 + 2 x 128', () => {
    expect(count('starcoder', ['q', 'v'])).toBe(pairs(40, [[6144, 6400]]));
  });

  it('Falcon-7B q,v: query_key_value 4544 -> 4544 + 2 x 64 (multi-query)', () => {
    expect(count('falcon-7b', ['q', 'v'])).toBe(pairs(32, [[4544, 4672]]));
  });

  it('GPT-NeoX-20B and BLOOM-7b1 q,k,v,o: query_key_value H -> 3H and dense', () => {
    expect(count('gpt-neox-20b', ['q', 'k', 'v', 'o'])).toBe(
      pairs(44, [
        [6144, 3 * 6144],
        [6144, 6144],
      ]),
    );
    expect(count('bloom-7b1', ['q', 'k', 'v', 'o'])).toBe(
      pairs(30, [
        [4096, 3 * 4096],
        [4096, 4096],
      ]),
    );
  });

  it('GLM-4-9B all-linear: separate q/k/v, one gate_up_proj 4096 -> 2 x 13696', () => {
    expect(count('glm-4-9b-0414', SEVEN, true)).toBe(
      pairs(40, [
        [4096, 4096],
        [4096, 256],
        [4096, 256],
        [4096, 4096],
        [4096, 2 * 13696],
        [13696, 4096],
      ]),
    );
  });

  it('a target on one role of a fused module counts what the launcher adapts: the whole module', () => {
    for (const id of ['phi-3-mini-4k-instruct', 'falcon-40b', 'gpt2']) {
      const arch = resolveModel(id);
      expect(loraTargetModules(arch, opts(['q'])).targetModules).toEqual(
        loraTargetModules(arch, opts(['q', 'k', 'v'])).targetModules,
      );
      expect(count(id, ['q'])).toBe(count(id, ['q', 'k', 'v']));
    }
    const phi3 = resolveModel('phi-3-mini-4k-instruct');
    expect(count('phi-3-mini-4k-instruct', ['up'])).toBe(
      count('phi-3-mini-4k-instruct', ['gate', 'up']),
    );
    const m = loraTargetModules(phi3, opts(['q', 'v', 'up']));
    expect(m.targetModules).toEqual(['qkv_proj', 'gate_up_proj']);
    expect(m.notes.join('\n')).toContain('one adapter pair');
  });

  it('a separate-projection model is unchanged: Llama-3-8B q,v is two pairs per layer', () => {
    expect(count('llama-3-8b', ['q', 'v'])).toBe(
      pairs(32, [
        [4096, 4096],
        [4096, 1024],
      ]),
    );
  });

  it('engines whose own layers adapt each role apart (torchtune, LitGPT) keep a pair per role', () => {
    const o = { ...opts(['q', 'k', 'v', 'o']), framework: 'hf' as Framework };
    const arch = resolveModel('phi-3-mini-4k-instruct');
    const perRole = pairs(32, [
      [3072, 3072],
      [3072, 3072],
      [3072, 3072],
      [3072, 3072],
    ]);
    expect(trainableParams(arch, o, FRAMEWORKS.hf, 0)).toBe(
      pairs(32, [
        [3072, 9216],
        [3072, 3072],
      ]),
    );
    for (const fw of ['torchtune', 'litgpt'] as const)
      expect(trainableParams(arch, { ...o, framework: fw }, FRAMEWORKS[fw], 0)).toBe(perRole);
  });

  it('a ZeRO-3 save walks a fused module as one module with one adapter pair', () => {
    const flags = {
      method: 'lora',
      'lora-rank': R,
      batch: 1,
      seq: 512,
      zero: 3,
      gpus: 8,
      gpu: 'h100-sxm',
      framework: 'hf-deepspeed',
    } as const;
    const arch = resolveModel('phi-3-mini-4k-instruct');
    const layout = { gpus: 8, zeroRanks: 8, tp: 1, pp: 1 };
    const oq = optionsFromFlags({ ...flags, 'lora-targets': 'q' });
    const oqkv = optionsFromFlags({ ...flags, 'lora-targets': 'q,k,v' });
    const r = gpuRates(findGpu('h100-sxm'), timeOptionsFromFlags(flags, oq));
    const save = (a: typeof arch, o: EstimateOptions) =>
      consolidatedSaveSeconds(modelFacts(a), o, layout, r);
    expect(save(arch, oq)).toBe(save(arch, oqkv));
    // Split per role: three base modules and three pairs in place of one.
    expect(save(withoutFusedModules(arch), oqkv)).toBeGreaterThan(save(arch, oqkv));
  });
});

interface Probe {
  versions: Record<string, string>;
  rank: number;
  models: Record<string, Record<'q,v' | 'all-linear', { trainable: number }>>;
}
const probe = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/peft-fused-count.json', import.meta.url), 'utf8'),
) as Probe;

// What PEFT 0.21.2 builds on transformers 5.14.1 for the catalog configs on the meta device
// (scripts/check-launch-libs/peft_fused_count.py): q,v as the launcher names it, and 'all-linear'.
describe("PEFT's own count on the fused families", () => {
  it('the probe ran at the pinned versions and rank', () => {
    expect(probe.versions).toMatchObject({ transformers: '5.14.1', peft: '0.21.2' });
    expect(probe.rank).toBe(R);
  });
  for (const [id, m] of Object.entries(probe.models))
    it(`${id}: q,v ${m['q,v'].trainable}, all-linear ${m['all-linear'].trainable}`, () => {
      expect(count(id, ['q', 'v'])).toBe(m['q,v'].trainable);
      expect(count(id, SEVEN, true)).toBe(m['all-linear'].trainable);
    });
});
