import { describe, expect, it } from 'vitest';
import type { Arch, LayerGroup } from '../../src/core/model/index.js';
import {
  ConfigError,
  SUPPORTED_MODEL_TYPES,
  archFromHfConfig,
} from '../../src/core/model/index.js';

const meta = { id: 'test', hfId: null };
const arch = (config: Record<string, unknown>): Arch => archFromHfConfig(config, meta);
const first = (a: Arch, name: LayerGroup['name'] = 'decoder'): LayerGroup => {
  const g = a.groups.find((x) => x.name === name);
  if (!g) throw new Error(`no ${name} group`);
  return g;
};
const roles = (g: LayerGroup) => g.linears.map((l) => l.role);
const linear = (g: LayerGroup, role: string) => {
  const l = g.linears.find((x) => x.role === role);
  if (!l) throw new Error(`no ${role}`);
  return l;
};

const llama = {
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  vocab_size: 100,
};

describe('llama-like decoders', () => {
  it('reads MHA by default, GQA from num_key_value_heads, and head_dim = hidden / heads', () => {
    const g = first(arch(llama));
    expect([g.heads, g.kvHeads, g.headDim]).toEqual([4, 4, 16]);
    expect(first(arch({ ...llama, num_key_value_heads: 1 })).kvHeads).toBe(1);
    expect(linear(first(arch({ ...llama, num_key_value_heads: 2 })), 'k').outFeatures).toBe(2 * 16);
  });

  it('lets an explicit head_dim win over hidden / heads (q width = heads * head_dim)', () => {
    const g = first(arch({ ...llama, head_dim: 32 }));
    expect(g.headDim).toBe(32);
    expect(linear(g, 'q')).toMatchObject({ inFeatures: 64, outFeatures: 4 * 32 });
    expect(linear(g, 'o')).toMatchObject({ inFeatures: 4 * 32, outFeatures: 64 });
  });

  it('uses each config class default for tie_word_embeddings', () => {
    // LlamaConfig default False; GemmaConfig default True.
    expect(arch(llama)).toMatchObject({ tiedEmbeddings: false, lmHeadParams: 100 * 64 });
    expect(arch({ ...llama, model_type: 'gemma' })).toMatchObject({
      tiedEmbeddings: true,
      lmHeadParams: 0,
    });
    expect(arch({ ...llama, tie_word_embeddings: true }).lmHeadParams).toBe(0);
  });

  it('defaults Gemma head_dim to 256 and uses 4 norms per layer in Gemma-2', () => {
    expect(first(arch({ ...llama, model_type: 'gemma' })).headDim).toBe(256);
    expect(first(arch({ ...llama, model_type: 'gemma2', head_dim: 16 })).normsPerLayer).toBe(4);
  });

  it('is a gated MLP with gate/up/down, and reads attention_bias and mlp_bias', () => {
    const g = first(arch(llama));
    expect(g.gated).toBe(true);
    expect(roles(g)).toEqual(['q', 'k', 'v', 'o', 'gate', 'up', 'down']);
    expect(g.linears.every((l) => !l.bias)).toBe(true);
    const biased = first(arch({ ...llama, attention_bias: true, mlp_bias: true }));
    expect(biased.linears.every((l) => l.bias)).toBe(true);
  });

  it('gives Qwen2 q/k/v biases but no o_proj bias', () => {
    const g = first(arch({ ...llama, model_type: 'qwen2' }));
    expect(g.linears.filter((l) => l.bias).map((l) => l.role)).toEqual(['q', 'k', 'v']);
  });

  it('adds Qwen3 q_norm/k_norm (head_dim each) to the per-layer extras', () => {
    const plain = first(arch(llama)).otherParamsPerLayer;
    expect(first(arch({ ...llama, model_type: 'qwen3' })).otherParamsPerLayer).toBe(plain + 2 * 16);
  });

  it('splits Phi-3 fused qkv_proj / gate_up_proj by role', () => {
    expect(roles(first(arch({ ...llama, model_type: 'phi3' })))).toEqual([
      'q',
      'k',
      'v',
      'o',
      'gate',
      'up',
      'down',
    ]);
  });

  it('sets slidingWindow only for groups where every layer uses it', () => {
    expect(
      first(arch({ ...llama, model_type: 'mistral', sliding_window: 4096 })).slidingWindow,
    ).toBe(4096);
    expect(
      first(arch({ ...llama, model_type: 'mistral', sliding_window: null })).slidingWindow,
    ).toBeNull();
    // Qwen2 ships sliding_window with use_sliding_window=false: not used.
    expect(
      first(
        arch({ ...llama, model_type: 'qwen2', sliding_window: 4096, use_sliding_window: false }),
      ).slidingWindow,
    ).toBeNull();
    // Gemma-2 alternates local and global layers: two decoder groups.
    const g2 = arch({
      ...llama,
      model_type: 'gemma2',
      head_dim: 16,
      num_hidden_layers: 4,
      sliding_window: 4096,
    });
    expect(g2.groups.map((g) => [g.count, g.slidingWindow])).toEqual([
      [2, 4096],
      [2, null],
    ]);
    // layer_types (gpt-oss, newer configs) wins.
    const typed = arch({
      ...llama,
      sliding_window: 128,
      layer_types: ['full_attention', 'full_attention'],
    });
    expect(typed.groups.map((g) => g.slidingWindow)).toEqual([null]);
  });

  it('reads dtype from torch_dtype or dtype, float32 when absent', () => {
    expect(arch(llama).dtype).toBe('float32');
    expect(arch({ ...llama, torch_dtype: 'bfloat16' }).dtype).toBe('bfloat16');
    expect(arch({ ...llama, dtype: 'float16' }).dtype).toBe('float16');
  });

  it('marks dropout only when a probability is > 0', () => {
    expect(first(arch({ ...llama, attention_dropout: 0.0 })).dropout).toBe(false);
    expect(first(arch({ ...llama, attention_dropout: 0.1 })).dropout).toBe(true);
  });
});

describe('mixture of experts', () => {
  it('Mixtral: router + experts with copies = experts and activeCopies = topK', () => {
    const g = first(
      arch({ ...llama, model_type: 'mixtral', num_local_experts: 8, num_experts_per_tok: 2 }),
    );
    expect([g.experts, g.topK, g.ffn]).toEqual([8, 2, 128]);
    expect(linear(g, 'router')).toMatchObject({ inFeatures: 64, outFeatures: 8, copies: 1 });
    expect(linear(g, 'up')).toMatchObject({ copies: 8, activeCopies: 2 });
  });

  it('Qwen3-MoE: expert width from moe_intermediate_size; mlp_only_layers stay dense', () => {
    const a = arch({
      ...llama,
      model_type: 'qwen3_moe',
      num_experts: 4,
      num_experts_per_tok: 2,
      moe_intermediate_size: 32,
      mlp_only_layers: [0],
    });
    expect(a.groups.map((g) => [g.count, g.experts, g.ffn])).toEqual([
      [1, 1, 128],
      [1, 4, 32],
    ]);
  });

  it('gpt-oss: accepts experts_per_token, biased router and experts, sinks per head', () => {
    const g = first(
      arch({
        ...llama,
        model_type: 'gpt_oss',
        num_local_experts: 4,
        experts_per_token: 2,
        head_dim: 16,
        sliding_window: 128,
      }),
    );
    expect(g.topK).toBe(2);
    expect(linear(g, 'router').bias).toBe(true);
    expect(linear(g, 'down')).toMatchObject({ bias: true, copies: 4, activeCopies: 2 });
    expect(linear(g, 'q').bias).toBe(true);
  });

  it('DeepSeek MLA: q_a/q_b/kv_a/kv_b roles, latent cache width, dense first layers, shared experts', () => {
    const a = arch({
      model_type: 'deepseek_v3',
      hidden_size: 64,
      intermediate_size: 256,
      moe_intermediate_size: 16,
      num_hidden_layers: 3,
      num_attention_heads: 4,
      n_routed_experts: 8,
      n_shared_experts: 1,
      num_experts_per_tok: 2,
      first_k_dense_replace: 1,
      q_lora_rank: 24,
      kv_lora_rank: 32,
      qk_nope_head_dim: 16,
      qk_rope_head_dim: 8,
      v_head_dim: 16,
      vocab_size: 100,
    });
    expect(a.groups.map((g) => [g.count, g.experts])).toEqual([
      [1, 1],
      [2, 8],
    ]);
    const moe = a.groups[1]!;
    expect(roles(moe).slice(0, 5)).toEqual(['q_a', 'q_b', 'kv_a', 'kv_b', 'o']);
    expect(moe.mlaCacheWidth).toBe(32 + 8);
    expect([moe.headDim, moe.vHeadDim]).toEqual([24, 16]);
    expect(linear(moe, 'kv_a').outFeatures).toBe(40);
    // Shared expert: copies 1, always active.
    expect(
      moe.linears.filter((l) => l.role === 'up').map((l) => [l.copies, l.activeCopies]),
    ).toEqual([
      [8, 2],
      [1, 1],
    ]);
  });
});

describe('classic decoders', () => {
  it('GPT-2: learned positions in embedParams, biased 2-matrix MLP, tied, dropout by default', () => {
    const a = arch({
      model_type: 'gpt2',
      n_embd: 64,
      n_head: 4,
      n_layer: 2,
      n_positions: 32,
      vocab_size: 100,
    });
    const g = first(a);
    expect(a.embedParams).toBe((100 + 32) * 64);
    expect(a.tiedEmbeddings).toBe(true);
    expect(roles(g)).toEqual(['q', 'k', 'v', 'o', 'up', 'down']);
    expect(linear(g, 'up').outFeatures).toBe(4 * 64);
    expect(g.linears.every((l) => l.bias)).toBe(true);
    expect([g.gated, g.norm, g.dropout]).toEqual([false, 'layer', true]);
  });

  it('GPT-BigCode multi_query: one KV head', () => {
    const g = first(
      arch({ model_type: 'gpt_bigcode', n_embd: 64, n_head: 4, n_layer: 1, vocab_size: 10 }),
    );
    expect(g.kvHeads).toBe(1);
    expect(linear(g, 'k').outFeatures).toBe(16);
  });

  it('OPT: position table has 2 offset rows', () => {
    const a = arch({
      model_type: 'opt',
      hidden_size: 64,
      ffn_dim: 256,
      num_hidden_layers: 1,
      num_attention_heads: 4,
      max_position_embeddings: 32,
      vocab_size: 100,
    });
    expect(a.embedParams).toBe(100 * 64 + (32 + 2) * 64);
  });

  it('parallel residual: GPT-J (1 norm), GPT-NeoX, Falcon, Phi', () => {
    const gptj = first(
      arch({ model_type: 'gptj', n_embd: 64, n_head: 4, n_layer: 1, vocab_size: 10 }),
    );
    expect([gptj.parallelResidual, gptj.normsPerLayer]).toEqual([true, 1]);
    const neox = {
      model_type: 'gpt_neox',
      hidden_size: 64,
      intermediate_size: 256,
      num_hidden_layers: 1,
      num_attention_heads: 4,
      vocab_size: 10,
    };
    expect(first(arch(neox)).parallelResidual).toBe(true);
    expect(first(arch({ ...neox, use_parallel_residual: false })).parallelResidual).toBe(false);
    const phi = { ...neox, model_type: 'phi' };
    expect(first(arch(phi)).parallelResidual).toBe(true);
    expect(arch(phi).lmHeadParams).toBe(10 * 64 + 10);
  });

  it('Falcon: multi_query (7B), new_decoder_architecture (40B) and the legacy RefinedWeb names', () => {
    const base = { hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 1, vocab_size: 10 };
    const f7 = first(
      arch({ ...base, model_type: 'falcon', multi_query: true, parallel_attn: true }),
    );
    expect([f7.kvHeads, f7.normsPerLayer, f7.parallelResidual]).toEqual([1, 1, true]);
    const f40 = first(
      arch({ ...base, model_type: 'falcon', new_decoder_architecture: true, num_kv_heads: 2 }),
    );
    expect([f40.kvHeads, f40.normsPerLayer]).toEqual([2, 2]);
    expect(first(arch({ ...base, model_type: 'RefinedWebModel', n_head: 4 })).kvHeads).toBe(1);
    expect(
      first(
        arch({
          model_type: 'RefinedWeb',
          n_embed: 64,
          n_head: 4,
          n_head_kv: 2,
          n_layer: 1,
          vocab_size: 10,
        }),
      ).kvHeads,
    ).toBe(2);
    expect(arch({ ...base, model_type: 'falcon' }).tiedEmbeddings).toBe(true);
  });
});

describe('encoders, encoder-decoders, vision', () => {
  it('BERT: encoder kind, bidirectional, token-type and position embeddings, dropout', () => {
    const a = arch({
      model_type: 'bert',
      hidden_size: 64,
      intermediate_size: 256,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      max_position_embeddings: 32,
      type_vocab_size: 2,
      vocab_size: 100,
    });
    expect(a.kind).toBe('encoder');
    expect(first(a, 'encoder')).toMatchObject({ causal: false, dropout: true });
    expect(a.embedParams).toBe((100 + 32 + 2) * 64);
  });

  it('T5: encoder + decoder with cross-attention roles; gated-gelu gives a gated FF', () => {
    const a = arch({
      model_type: 't5',
      d_model: 64,
      d_kv: 16,
      d_ff: 128,
      num_heads: 4,
      num_layers: 2,
      feed_forward_proj: 'gated-gelu',
      tie_word_embeddings: false,
      vocab_size: 100,
    });
    expect(a.kind).toBe('encoder-decoder');
    expect(a.groups.map((g) => [g.name, g.count, g.crossAttention])).toEqual([
      ['encoder', 2, false],
      ['decoder', 2, true],
    ]);
    expect(roles(first(a))).toEqual([
      'q',
      'k',
      'v',
      'o',
      'cross_q',
      'cross_k',
      'cross_v',
      'cross_o',
      'gate',
      'up',
      'down',
    ]);
    expect(first(a, 'encoder').gated).toBe(true);
    const relu = arch({
      model_type: 't5',
      d_model: 64,
      d_kv: 16,
      d_ff: 128,
      num_heads: 4,
      num_layers: 1,
      vocab_size: 10,
    });
    expect([first(relu, 'encoder').gated, relu.tiedEmbeddings]).toEqual([false, true]);
  });

  it('Mllama: self-attention decoder, cross-attention layers, vision tower', () => {
    const a = arch({
      model_type: 'mllama',
      text_config: {
        ...llama,
        num_hidden_layers: 5,
        cross_attention_layers: [1, 3],
        num_key_value_heads: 2,
      },
      vision_config: {
        attention_heads: 4,
        hidden_size: 32,
        image_size: 56,
        intermediate_size: 64,
        max_num_tiles: 2,
        num_global_layers: 1,
        num_hidden_layers: 2,
        patch_size: 14,
        supported_aspect_ratios: [
          [1, 1],
          [1, 2],
          [2, 1],
        ],
        vision_output_dim: 96,
      },
    });
    expect(a.groups.map((g) => [g.name, g.count])).toEqual([
      ['decoder', 3],
      ['cross', 2],
      ['vision', 3],
    ]);
    expect(roles(first(a, 'cross'))).toEqual([
      'cross_q',
      'cross_k',
      'cross_v',
      'cross_o',
      'gate',
      'up',
      'down',
    ]);
    expect(a.embedParams).toBe((100 + 8) * 64);
  });
});

describe('quantization_config', () => {
  const q = (quantization_config: unknown) => arch({ ...llama, quantization_config }).quant;
  it('reads bitsandbytes 4-bit and 8-bit', () => {
    expect(q({ quant_method: 'bitsandbytes', load_in_4bit: true })).toMatchObject({
      method: 'bitsandbytes-4bit',
      bits: 4,
    });
    expect(q({ load_in_8bit: true, llm_int8_skip_modules: ['lm_head'] })).toEqual({
      method: 'bitsandbytes-8bit',
      bits: 8,
      groupSize: null,
      skipped: ['lm_head'],
    });
  });
  it('reads GPTQ and AWQ bits and group size', () => {
    expect(q({ quant_method: 'gptq', bits: 4, group_size: 128 })).toMatchObject({
      method: 'gptq',
      bits: 4,
      groupSize: 128,
    });
    expect(q({ quant_method: 'gptq', bits: 4, group_size: -1 })?.groupSize).toBeNull();
    expect(q({ quant_method: 'awq', bits: 4, group_size: 64 })).toMatchObject({
      method: 'awq',
      bits: 4,
      groupSize: 64,
    });
  });
  it('reads fp8 (block scales), compressed-tensors FP8-dynamic and mxfp4', () => {
    expect(q({ quant_method: 'fp8', weight_block_size: [128, 128] })).toMatchObject({
      method: 'fp8',
      bits: 8,
      groupSize: 16384,
    });
    const ct = {
      quant_method: 'compressed-tensors',
      config_groups: { group_0: { weights: { num_bits: 8, type: 'float', strategy: 'channel' } } },
      ignore: ['lm_head'],
    };
    expect(q(ct)).toEqual({ method: 'fp8', bits: 8, groupSize: null, skipped: ['lm_head'] });
    expect(q({ quant_method: 'mxfp4', modules_to_not_convert: ['lm_head'] })).toMatchObject({
      method: 'mxfp4',
      bits: 4,
    });
    expect(arch(llama).quant).toBeNull();
  });
});

describe('hostile inputs', () => {
  const fails = (config: unknown) => {
    try {
      archFromHfConfig(config, meta);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return e as ConfigError;
    }
    throw new Error('expected a ConfigError');
  };

  it('names the allowed model_types for an unknown one', () => {
    const e = fails({ model_type: 'foo' });
    expect(e.field).toBe('model_type');
    expect(e.message).toMatch(
      /^config\.json model_type: got 'foo'; expected one of llama, mistral, /,
    );
    expect(e.message).not.toContain('\n');
  });

  it('rejects non-positive or non-integer sizes and wrong types, naming the field', () => {
    expect(fails({ ...llama, hidden_size: -4096 }).message).toBe(
      'config.json hidden_size: got -4096; expected a positive integer',
    );
    expect(fails({ ...llama, num_hidden_layers: '32' }).message).toBe(
      "config.json num_hidden_layers: got '32'; expected a positive integer",
    );
    expect(fails({ ...llama, vocab_size: 1.5 }).field).toBe('vocab_size');
    expect(fails({ ...llama, tie_word_embeddings: 'yes' }).field).toBe('tie_word_embeddings');
    expect(fails({ ...llama, torch_dtype: 'float99' }).field).toBe('torch_dtype');
  });

  it('reports missing required fields and non-object configs', () => {
    const { hidden_size: _, ...noHidden } = llama;
    expect(fails(noHidden).message).toBe(
      'config.json hidden_size: got nothing; expected a positive integer',
    );
    expect(fails([1, 2]).field).toBe('(root)');
    expect(fails({ ...llama, num_attention_heads: 5 }).field).toBe('num_attention_heads');
    expect(fails({ model_type: 'mllama', text_config: 3 }).field).toBe('text_config');
    expect(
      fails({ model_type: 'mllama', text_config: { ...llama, hidden_size: 0 }, vision_config: {} })
        .field,
    ).toBe('text_config.hidden_size');
  });

  it('supports every model_type the brief lists', () => {
    for (const t of [
      'llama',
      'mistral',
      'mixtral',
      'qwen2',
      'qwen2_moe',
      'qwen3',
      'qwen3_moe',
      'gemma',
      'gemma2',
      'gemma3_text',
      'phi',
      'phi3',
      'gptj',
      'gpt_neox',
      'stablelm',
      'falcon',
      'bloom',
      'opt',
      'gpt_bigcode',
      'gpt2',
      'bert',
      't5',
      'mt5',
      'mllama',
      'gpt_oss',
      'deepseek_v2',
      'deepseek_v3',
    ]) {
      expect(SUPPORTED_MODEL_TYPES).toContain(t);
    }
  });
});
