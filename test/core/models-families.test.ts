// parameters against published counts, KV only on attention layers, conv and
// recurrent state independent of the context, MoE active vs total, MTP layers, windows, one-line errors.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archOf as arch, catalogConfig as catalog, kvOf } from '../helpers/model-configs.js';
import { ConfigError, paramCounts, visionTokens, type Arch } from '../../src/core/model/index.js';
import { recurrentStateBytes } from '../../src/core/memory/index.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/models/families/${name}.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
const layers = (a: Arch, recurrent: boolean): number =>
  a.groups
    .filter((g) => g.name !== 'vision' && !!g.recurrent === recurrent)
    .reduce((s, g) => s + g.count, 0);
const never = (): never => {
  throw new Error('unreachable');
};
const errorOf = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('no ConfigError');
};

// The Hub's safetensors total counts every tensor in the files, MTP layers included: ParamCounts.checkpoint.
describe('published counts: the Hub safetensors totals, exactly', () => {
  it.each([
    ['glm-4.5-air', 110_468_824_832],
    ['glm-4.5', 358_337_791_296],
    ['minimax-m2', 228_689_764_864],
    ['olmo-2-1124-7b', 7_298_617_344],
    ['smollm3-3b', 3_075_098_624],
    ['starcoder2-7b', 7_173_923_840],
    ['olmoe-1b-7b-0924', 6_919_161_856],
    ['phi-3.5-moe-instruct', 41_873_153_344],
    ['lfm2-1.2b', 1_170_340_608],
    ['qwen2-vl-7b-instruct', 8_291_375_616],
    ['llava-1.5-7b-hf', 7_063_427_072],
    ['nemotron-3-nano-30b-a3b', 31_577_937_344],
  ])('%s', (id, published) => {
    expect(paramCounts(arch(catalog(id))).checkpoint).toBe(published);
  });

  it('Jamba v0.1: 51.6B on the Hub page (model card 52B), 12B active', () => {
    const p = paramCounts(arch(catalog('jamba-v0.1')));
    expect(Math.abs(p.total - 51.6e9) / 51.6e9).toBeLessThan(0.005);
    expect(Math.abs(p.active - 12e9) / 12e9).toBeLessThan(0.02);
  });
});

describe('GLM-4.5 (glm4_moe)', () => {
  const air = arch(catalog('glm-4.5-air'));
  const h = 4096;
  const vocab = 151552;

  it('reads the first first_k_dense_replace layers dense and the rest MoE', () => {
    expect(air.groups.map((g) => [g.count, g.experts])).toEqual([
      [1, 1],
      [45, 128],
    ]);
  });

  it('counts one MTP layer: an MoE layer, eh_proj, 3 norms, its own embedding and head', () => {
    const noMtp = paramCounts(arch({ ...catalog('glm-4.5-air'), num_nextn_predict_layers: 0 }));
    const moe = air.groups[1];
    if (!moe) throw new Error('no MoE group');
    const moeLayer =
      moe.linears.reduce(
        (s, l) => s + (l.inFeatures + (l.bias ? 1 : 0)) * l.outFeatures * l.copies,
        0,
      ) + moe.otherParamsPerLayer;
    expect(air.mtpLayers).toBe(1);
    const mtp = moeLayer + 2 * h * h + 3 * h + 2 * vocab * h;
    expect(air.mtpParams).toBe(mtp);
    expect(paramCounts(air).checkpoint - noMtp.checkpoint).toBe(mtp);
    // Kept apart: the model that loads and runs is the same with or without it.
    expect(paramCounts(air).total).toBe(noMtp.total);
    // Without the MTP layer the config gives the model card's "106B".
    expect(Math.abs(noMtp.total - 106e9) / 106e9).toBeLessThan(0.01);
  });

  it('activates about 12B of 106B (model card) besides the embedding and head', () => {
    const p = paramCounts(arch({ ...catalog('glm-4.5-air'), num_nextn_predict_layers: 0 }));
    const body = p.active - p.embed - p.lmHead;
    expect(Math.abs(body - 12e9) / 12e9).toBeLessThan(0.02);
  });

  it('keeps a GQA KV cache of 8 heads x 128 on 46 layers; q/k norms follow use_qk_norm', () => {
    expect(kvOf(air, 8192) - kvOf(air, 4096)).toBe(46 * 8 * 128 * 2 * 2 * 4096);
    const withNorm = arch({ ...catalog('glm-4.5-air'), use_qk_norm: true });
    // 46 layers run; the MTP layer's own q/k norms are in the checkpoint only.
    expect(paramCounts(withNorm).total - paramCounts(air).total).toBe(46 * 2 * 128);
    expect(paramCounts(withNorm).checkpoint - paramCounts(air).checkpoint).toBe(47 * 2 * 128);
  });
});

describe('Nemotron 3 (nemotron_h): latent MoE and MTP blocks', () => {
  const shape = fixture('nemotron-3-super-shape');

  it('gives the Super 120B-A12B Hub total: latent experts, shared expert, one *E MTP layer', () => {
    const a = arch(shape);
    expect(paramCounts(a).checkpoint).toBe(123_611_012_096);
    expect(a.mtpLayers).toBe(1);
    expect(paramCounts(a).total).toBe(123_611_012_096 - (a.mtpParams ?? 0));
  });

  it('reads mtp_layers_block_type like mtp_hybrid_override_pattern', () => {
    const { mtp_hybrid_override_pattern: _, ...rest } = shape;
    const listed = arch({ ...rest, mtp_layers_block_type: ['attention', 'moe'] });
    expect(paramCounts(listed).checkpoint).toBe(123_611_012_096);
    expect(arch(rest).mtpLayers).toBeUndefined();
  });

  it('latent MoE: experts at moe_latent_size plus fc1/fc2 latent projections', () => {
    const h = 4096;
    const latent = 1024;
    const ffn = 2688;
    const experts = 512;
    const dense = paramCounts(arch({ ...shape, moe_latent_size: null }));
    const latentCounts = paramCounts(arch(shape));
    const perBlock = experts * 2 * ffn * (latent - h) + 2 * h * latent;
    // 40 MoE layers run; the checkpoint also holds the MTP layer's MoE block.
    expect(latentCounts.total - dense.total).toBe(40 * perBlock);
    expect(latentCounts.checkpoint - dense.checkpoint).toBe(41 * perBlock);
  });
});

describe('MoE: active parameters replace the routed experts by top-k', () => {
  it.each(['minimax-m2', 'olmoe-1b-7b-0924', 'phi-3.5-moe-instruct', 'glm-4.5-air'])('%s', (id) => {
    const a = arch(catalog(id));
    const p = paramCounts(a);
    const inactive = a.groups.reduce(
      (s, g) =>
        s +
        g.count *
          g.linears
            .filter((l) => l.copies > 1)
            .reduce(
              (t, l) =>
                t + (l.inFeatures + (l.bias ? 1 : 0)) * l.outFeatures * (l.copies - l.activeCopies),
              0,
            ),
      0,
    );
    expect(p.total - p.active).toBe(inactive);
    expect(p.active).toBeLessThan(p.total);
  });

  it('more experts per token never lowers the active count (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 63 }), (k) => {
        const base = catalog('olmoe-1b-7b-0924');
        const lo = paramCounts(arch({ ...base, num_experts_per_tok: k }));
        const hi = paramCounts(arch({ ...base, num_experts_per_tok: k + 1 }));
        return hi.active > lo.active && hi.total === lo.total;
      }),
      { numRuns: 20 },
    );
  });
});

describe('LFM2 (lfm2): short convolutions beside attention', () => {
  const a = arch(catalog('lfm2-1.2b'));

  it('reads 6 attention and 10 conv layers from layer_types', () => {
    expect([layers(a, false), layers(a, true)]).toEqual([6, 10]);
    expect(a.groups.find((g) => g.recurrent)?.recurrent?.kind).toBe('short-conv');
  });

  it('KV grows only with the 6 attention layers (8 KV heads x 64)', () => {
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(6 * 8 * 64 * 2 * 2 * 4096);
  });

  it('the conv state is hidden x (L_cache - 1) per conv layer, whatever the context', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 16384 }),
        fc.integer({ min: 1, max: 8 }),
        (seq, batch) => {
          const state = kvOf(a, seq, batch) - 6 * 8 * 64 * 2 * 2 * seq * batch;
          return state === 10 * batch * 2048 * 2 * 2;
        },
      ),
      { numRuns: 20 },
    );
    const r = a.groups.find((g) => g.recurrent)?.recurrent;
    if (!r) throw new Error('no conv group');
    expect(recurrentStateBytes(r, 2, 1)).toBe(2048 * 2 * 2);
  });

  it('adjusts the MLP width: int(2/3 x 12288) rounded up to block_multiple_of', () => {
    expect(a.groups[0]?.ffn).toBe(8192);
    expect(arch({ ...catalog('lfm2-1.2b'), block_auto_adjust_ff_dim: false }).groups[0]?.ffn).toBe(
      12288,
    );
  });
});

describe('LFM2-MoE (lfm2_moe)', () => {
  const a = arch(fixture('lfm2-8b-a1b'));

  it('8.3B total, 1.5B active (model card), two dense layers then 32 experts top-4', () => {
    const p = paramCounts(a);
    expect(Math.abs(p.total - 8.3e9) / 8.3e9).toBeLessThan(0.005);
    expect(Math.abs(p.active - 1.5e9) / 1.5e9).toBeLessThan(0.05);
    expect(a.groups.filter((g) => g.experts === 1).reduce((s, g) => s + g.count, 0)).toBe(2);
  });

  it('KV on its 6 attention layers only; 18 conv states', () => {
    expect([layers(a, false), layers(a, true)]).toEqual([6, 18]);
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(6 * 8 * 64 * 2 * 2 * 4096);
  });
});

describe('Jamba (jamba): Mamba v1 layers, attention every 8th, MoE every other', () => {
  const a = arch(catalog('jamba-v0.1'));

  it('reads 4 attention and 28 Mamba layers; MoE on 16', () => {
    expect([layers(a, false), layers(a, true)]).toEqual([4, 28]);
    expect(a.groups.filter((g) => g.experts > 1).reduce((s, g) => s + g.count, 0)).toBe(16);
  });

  it('KV on 4 layers only; the state is conv inner x 3 and scan inner x d_state per Mamba layer', () => {
    expect(kvOf(a, 8192) - kvOf(a, 4096)).toBe(4 * 8 * 128 * 2 * 2 * 4096);
    const state = kvOf(a, 4096) - (kvOf(a, 8192) - kvOf(a, 4096));
    expect(state).toBe(28 * (8192 * 3 + 8192 * 16) * 2);
  });
});

describe('Falcon-H1 (falcon_h1): attention and Mamba2 in every layer', () => {
  const a = arch(fixture('falcon-h1-tiny'));

  it('keeps KV on every layer and a Mamba2 state on every layer', () => {
    expect([layers(a, false), layers(a, true)]).toEqual([4, 4]);
    expect(kvOf(a, 2048) - kvOf(a, 1024)).toBe(4 * 2 * 32 * 2 * 2 * 1024);
    const state = kvOf(a, 1024) - (kvOf(a, 2048) - kvOf(a, 1024));
    // conv (d_ssm + 2 groups d_state) x 3 + heads x head_dim x d_state, bf16.
    expect(state).toBe(4 * ((256 + 2 * 16) * 3 + 8 * 32 * 16) * 2);
  });

  it('counts the mixer by hand: in_proj, conv + bias, dt/A/D, out_proj (no gated norm without mamba_rms_norm)', () => {
    const h = 128;
    const inner = 256;
    const conv = inner + 2 * 16;
    const mixer = h * (inner + conv + 8) + conv * 4 + conv + 3 * 8 + inner * h;
    const attn = 2 * h * 128 + 2 * h * 64;
    const mlp = 3 * h * 384;
    expect(paramCounts(a).total).toBe(2 * 1000 * h + 4 * (mixer + attn + mlp + 2 * h) + h);
    const normed = arch({ ...fixture('falcon-h1-tiny'), mamba_rms_norm: true });
    expect(paramCounts(normed).total - paramCounts(a).total).toBe(4 * inner);
  });

  it('refuses mamba heads that do not split d_ssm, naming the field', () => {
    const e = errorOf(() =>
      arch({ ...fixture('falcon-h1-tiny'), mamba_n_heads: 7, mamba_d_head: 'auto' }),
    );
    expect(e.message).toMatch(/^config\.json mamba_n_heads: got 7; expected/);
  });
});

describe('Cohere (cohere, cohere2): one weight-only LayerNorm feeding attention and MLP', () => {
  it('Command R7B (cohere2) has the shapes and the Hub total of Aya Expanse 8B (cohere)', () => {
    const r7b = catalog('command-r7b-12-2024');
    expect(paramCounts(arch(r7b)).total).toBe(8_028_033_024);
    const aya = {
      ...r7b,
      model_type: 'cohere',
      sliding_window: null,
      sliding_window_pattern: null,
    };
    expect(paramCounts(arch(aya)).total).toBe(8_028_033_024);
  });

  it('use_qk_norm adds a (heads + kv heads) x head_dim norm per layer (Command R+)', () => {
    const base = { ...catalog('command-r7b-12-2024'), model_type: 'cohere' };
    const normed = paramCounts(arch({ ...base, use_qk_norm: true })).total;
    expect(normed - paramCounts(arch(base)).total).toBe(32 * (32 + 8) * 128);
  });
});

describe('hybrids: KV grows with the attention layers only, the fixed state with the batch only', () => {
  const hybrids: [string, Arch][] = [
    ['lfm2', arch(catalog('lfm2-1.2b'))],
    ['lfm2_moe', arch(fixture('lfm2-8b-a1b'))],
    ['jamba', arch(catalog('jamba-v0.1'))],
    ['falcon_h1', arch(fixture('falcon-h1-tiny'))],
    ['bamba', arch(catalog('bamba-9b'))],
    ['nemotron_h', arch(catalog('nemotron-3-nano-30b-a3b'))],
  ];

  it.each(hybrids)('%s (property over context and batch)', (_name, a) => {
    const perToken = a.groups
      .filter((g) => g.name === 'decoder' && !g.recurrent)
      .reduce((s, g) => s + g.count * g.kvHeads * (g.headDim + g.vHeadDim) * 2, 0);
    const state = a.groups
      .filter((g) => g.recurrent)
      .reduce((s, g) => s + g.count * recurrentStateBytes(g.recurrent ?? never(), 2, 1), 0);
    expect(state).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 8192 }), fc.integer({ min: 1, max: 4 }), (seq, b) => {
        return kvOf(a, seq, b) === b * (perToken * seq + state);
      }),
      { numRuns: 15 },
    );
  });

  it('refuses layer_types of the wrong length, naming the field', () => {
    const e = errorOf(() =>
      arch({ ...catalog('lfm2-1.2b'), layer_types: ['conv', 'full_attention'] }),
    );
    expect(e.message).toMatch(
      /^config\.json layer_types: got '2 entries'; expected one entry per layer/,
    );
  });
});

describe('windows: sliding layers where the family puts them', () => {
  const dense = (extra: Record<string, unknown>) => ({
    hidden_size: 256,
    num_hidden_layers: 8,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    intermediate_size: 512,
    vocab_size: 1000,
    sliding_window: 128,
    ...extra,
  });
  const windows = (a: Arch): number =>
    a.groups.filter((g) => g.slidingWindow !== null).reduce((s, g) => s + g.count, 0);

  it('olmo3 and cohere2: 3 of every 4 layers slide by default', () => {
    expect(windows(arch(dense({ model_type: 'olmo3' })))).toBe(6);
    expect(windows(arch(dense({ model_type: 'cohere2' })))).toBe(6);
  });

  it("exaone4: the 'LLLG' pattern string; layer_types wins", () => {
    expect(windows(arch(dense({ model_type: 'exaone4', sliding_window_pattern: 'LLLG' })))).toBe(6);
    const types = Array.from({ length: 8 }, (_, i) =>
      i === 0 ? 'sliding_attention' : 'full_attention',
    );
    expect(windows(arch(dense({ model_type: 'exaone4', layer_types: types })))).toBe(1);
  });

  it('a sliding layer holds at most the window of KV', () => {
    const a = arch(dense({ model_type: 'olmo3' }));
    expect(kvOf(a, 4096) - kvOf(a, 2048)).toBe(2 * 2 * 64 * 2 * 2 * 2048);
  });
});

describe('wrappers', () => {
  it('LLaVA 1.5: 576 tokens an image (336/14 squared), CLIP defaults where the config is silent', () => {
    const a = arch(catalog('llava-1.5-7b-hf'));
    expect(visionTokens(a, 1)?.perImage).toBe(576);
    expect(a.groups[0]?.hidden).toBe(4096);
    const next = arch({ ...catalog('llava-1.5-7b-hf'), model_type: 'llava_next' });
    expect(paramCounts(next).total - paramCounts(a).total).toBe(4096);
  });

  it('refuses a vision tower that is not CLIP, naming the field', () => {
    const c = catalog('llava-1.5-7b-hf');
    const e = errorOf(() =>
      arch({
        ...c,
        vision_config: { ...(c.vision_config as object), model_type: 'siglip_vision_model' },
      }),
    );
    expect(e.message).toMatch(/^config\.json vision_config\.model_type: got 'siglip_vision_model'/);
  });

  it('GLM-4.1V: 10.3B (Hub page) with the tower; 9.4B text alone like GLM-4-9B-0414', () => {
    const a = arch(catalog('glm-4.1v-9b-thinking'));
    expect(Math.abs(paramCounts(a).total - 10.3e9) / 10.3e9).toBeLessThan(0.005);
    const text = a.groups.filter((g) => g.name === 'decoder');
    expect(text.map((g) => [g.count, g.normsPerLayer])).toEqual([[40, 4]]);
    const vision = a.groups.find((g) => g.name === 'vision');
    // qkv without bias (attention_bias false), proj and the SwiGLU MLP without bias.
    expect(vision?.linears.every((l) => !l.bias)).toBe(true);
    expect(visionTokens(a, 1)?.perImage).toBe(144);
  });

  it('Qwen2-VL: 1280 tokens of 28 x 28 pixels by default, vision tower in the total', () => {
    const a = arch(catalog('qwen2-vl-7b-instruct'));
    expect(visionTokens(a, 1)?.perImage).toBe(1280);
    expect(a.groups.at(-1)?.name).toBe('vision');
  });
});

describe('bad input: one-line errors naming the field', () => {
  it('a per-layer expert list with a bad entry (hunyuan_v1_moe num_experts)', () => {
    const e = errorOf(() =>
      arch({
        model_type: 'hunyuan_v1_moe',
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 128,
        vocab_size: 100,
        num_experts: [4, 'x'],
        moe_topk: 2,
      }),
    );
    expect(e.message).toMatch(/^config\.json num_experts: got \[4,"x"\]; expected/);
  });

  it('more experts per token than experts (ernie4_5_moe moe_k)', () => {
    const e = errorOf(() =>
      arch({
        model_type: 'ernie4_5_moe',
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 128,
        vocab_size: 100,
        moe_num_experts: 4,
        moe_k: 8,
        moe_intermediate_size: 32,
        moe_layer_start_index: 0,
      }),
    );
    expect(e.message).toMatch(
      /^config\.json moe_k: got 8; expected at most the number of experts \(4\)$/,
    );
  });
});
