// hybrid linear attention, multimodal wrappers, MTP, windowed/chunked attention, unknown model_type.
import { describe, expect, it } from 'vitest';
import {
  archOf as arch,
  catalogConfig as catalog,
  inference,
  kvOf,
} from '../helpers/model-configs.js';
import { ConfigError, paramCounts, visionTokens } from '../../src/core/model/index.js';
import { estimateMemory, recurrentStateBytes } from '../../src/core/memory/index.js';

describe('published counts (within 0.5%)', () => {
  it.each([
    // Model cards / Hub safetensors totals.
    ['qwen3-next-80b-a3b', 80e9],
    ['gemma-3-27b-it', 27_432_406_640],
    ['llama-4-scout-17b-16e', 108_641_793_536],
  ])('%s', (id, published) => {
    const total = paramCounts(arch(catalog(id))).total;
    expect(Math.abs(total - published) / published).toBeLessThan(0.005);
  });

  it('Qwen3-Next activates about 3.9B of 80B (NVIDIA NIM card: 3.9B active)', () => {
    const p = paramCounts(arch(catalog('qwen3-next-80b-a3b')));
    expect(Math.abs(p.active - 3.9e9) / 3.9e9).toBeLessThan(0.01);
  });
});

describe('hybrid linear attention', () => {
  const next = arch(catalog('qwen3-next-80b-a3b'));
  const attnLayers = next.groups.filter((g) => !g.recurrent).reduce((a, g) => a + g.count, 0);
  const linearLayers = next.groups.filter((g) => g.recurrent).reduce((a, g) => a + g.count, 0);

  it('reads 12 full-attention and 36 Gated DeltaNet layers', () => {
    expect([attnLayers, linearLayers]).toEqual([12, 36]);
  });

  it('KV grows only with the full-attention layers', () => {
    const g = next.groups.find((x) => !x.recurrent);
    if (!g) throw new Error('no attention group');
    const perToken = attnLayers * g.kvHeads * (g.headDim + g.vHeadDim) * 2;
    expect(kvOf(next, 8192) - kvOf(next, 4096)).toBe(perToken * 4096);
  });

  it('the recurrent state does not grow with the context, only with the batch', () => {
    const state = kvOf(next, 4096) - (kvOf(next, 8192) - kvOf(next, 4096));
    const r = next.groups.find((x) => x.recurrent)?.recurrent;
    if (!r) throw new Error('no recurrent group');
    expect(state).toBe(linearLayers * recurrentStateBytes(r, 2, 1));
    expect(kvOf(next, 4096, 2)).toBe(2 * kvOf(next, 4096, 1));
  });

  it('the state uses the dtype the config names (mamba_ssm_dtype float32)', () => {
    const r = arch(catalog('qwen3.5-27b')).groups.find((g) => g.recurrent)?.recurrent;
    expect(r?.stateBytes).toBe(4);
  });

  it('a 64-layer hybrid with 16 full-attention layers holds a quarter of a dense reading', () => {
    const hybrid = arch(catalog('qwen3.5-27b'));
    const g = hybrid.groups.find((x) => x.name === 'decoder' && !x.recurrent);
    if (!g) throw new Error('no attention group');
    const dense = 64 * g.kvHeads * (g.headDim + g.vHeadDim) * 2 * 4096;
    expect((kvOf(hybrid, 8192) - kvOf(hybrid, 4096)) / dense).toBe(0.25);
  });

  it('counts the MTP layer of Qwen3.5 in the checkpoint only; the model rounds to the card\'s "27B"', () => {
    const a = arch(catalog('qwen3.5-27b'));
    expect(a.mtpLayers).toBe(1);
    const t = catalog('qwen3.5-27b').text_config as Record<string, unknown>;
    const without = arch({
      ...catalog('qwen3.5-27b'),
      text_config: { ...t, mtp_num_hidden_layers: 0 },
    });
    expect(paramCounts(a).checkpoint).toBeGreaterThan(paramCounts(without).checkpoint);
    expect(paramCounts(a).total).toBe(paramCounts(without).total);
    // Model card: "27B" (language model and vision tower); the count rounds to it, the checkpoint (27.78B) does not.
    expect(Math.round(paramCounts(a).total / 1e9)).toBe(27);
    expect(Math.round(paramCounts(a).checkpoint / 1e9)).toBe(28);
  });

  it('refuses layer_types of the wrong length, naming the field', () => {
    const c = { ...catalog('qwen3-next-80b-a3b'), layer_types: ['full_attention'] };
    expect(() => arch(c)).toThrow(/layer_types: got '1 entries'; expected one entry per layer/);
  });
});

describe('windowed and chunked attention', () => {
  it("Gemma 3: a sliding layer's KV stops at the window, global layers keep growing", () => {
    const g = arch(catalog('gemma-3-27b-it'));
    const sliding = g.groups.find((x) => x.slidingWindow === 1024);
    expect(sliding?.count).toBe(52);
    const perTokenGlobal = 10 * 16 * 256 * 2;
    expect(kvOf(g, 16384) - kvOf(g, 8192)).toBe(perTokenGlobal * 8192);
    expect(kvOf(g, 1024) - kvOf(g, 512)).toBe(62 * 16 * 256 * 2 * 512);
  });

  it('Llama 4: chunked layers hold one chunk, NoPE layers the whole context', () => {
    const l = arch(catalog('llama-4-scout-17b-16e'));
    expect(l.groups.find((x) => x.slidingWindow === 8192)?.count).toBe(36);
    expect(kvOf(l, 32768) - kvOf(l, 16384)).toBe(12 * 8 * 256 * 2 * 16384);
  });
});

describe('multimodal wrappers', () => {
  it('count the vision tower as a vision group and size image tokens from the config', () => {
    const q = arch(catalog('qwen3.5-27b'));
    expect(q.groups.some((g) => g.name === 'vision')).toBe(true);
    // 16-pixel patches merged 2 x 2: one token per 32 x 32 pixels.
    expect(visionTokens(q, 2, 1024 * 1024)).toEqual({
      perImage: 1024,
      tokens: 2048,
      pixels: 1048576,
    });
    expect(visionTokens(arch(catalog('gemma-3-27b-it')), 3)?.tokens).toBe(768);
    expect(visionTokens(arch(catalog('llama-4-scout-17b-16e')), 1)?.perImage).toBe(144);
  });

  it('refuses text_config contradicting a top-level field, naming it', () => {
    const c = { ...catalog('gemma-3-27b-it'), hidden_size: 4096 };
    expect(() => arch(c)).toThrow(
      /text_config\.hidden_size: got 5376; expected the top-level hidden_size/,
    );
  });

  it('refuses a vision config without patch size, naming the field', () => {
    const c = catalog('qwen3.5-27b');
    const { patch_size: _p, ...v } = c.vision_config as Record<string, unknown>;
    expect(() => arch({ ...c, vision_config: v })).toThrow(
      /vision_config\.patch_size: got nothing/,
    );
  });
});

describe('an unknown model_type', () => {
  const standard = {
    model_type: 'made_up_lm',
    hidden_size: 1024,
    num_hidden_layers: 8,
    num_attention_heads: 16,
    num_key_value_heads: 4,
    intermediate_size: 2816,
    vocab_size: 32000,
  };

  it('with the standard fields estimates as a llama-like decoder, every assumption named', () => {
    const a = arch(standard);
    expect(a.assumptions?.[0]).toMatch(/made_up_lm.*llama-like decoder/);
    expect(a.assumptions?.join('\n')).toMatch(/tie_word_embeddings/);
    const llama = arch({ ...standard, model_type: 'llama' });
    expect(paramCounts(a)).toEqual(paramCounts(llama));
    expect(estimateMemory(a, inference(512)).perGpu.breakdown.weights).toBeGreaterThan(0);
  });

  it('reads its experts under their own keys and says so', () => {
    const a = arch({ ...standard, num_local_experts: 8, num_experts_per_tok: 2 });
    expect(a.groups[0]?.experts).toBe(8);
    expect(a.assumptions?.join('\n')).toMatch(/experts: 8 \(num_local_experts\)/);
  });

  it('without the standard fields is refused with one line naming what is missing', () => {
    const { vocab_size: _v, intermediate_size: _i, ...partial } = standard;
    const run = () => arch(partial);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(/missing: intermediate_size, vocab_size\)$/);
  });
});
