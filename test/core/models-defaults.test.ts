// Families read from their transformers modeling files: each reproduces transformers' own parameter count for its
// configuration class's defaults (and variants exercising each optional part), and caches what vLLM caches.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archOf as arch, kvOf } from '../helpers/model-configs.js';
import { paramCounts, type Arch } from '../../src/core/model/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeCacheBytes } from '../../src/core/memory/kv-layout.js';

type Row = { config: Record<string, unknown>; params: number };
const rows = JSON.parse(
  readFileSync(
    new URL('../fixtures/models/families/transformers-defaults.json', import.meta.url),
    'utf8',
  ),
) as Record<string, Row>;
const row = (k: string): Row => rows[k] ?? { config: {}, params: 0 };
const decoderLayers = (a: Arch) =>
  a.groups.filter((g) => g.name === 'decoder').reduce((s, g) => s + g.count, 0);

// The DeepSeek-V3 router's e_score_correction_bias (one per routed expert on every MoE layer) is a buffer in
// transformers but a tensor of the checkpoint; the reader counts it, as deepseek_v3's does.
const ROUTER_BIAS: Record<string, number> = {
  deepseek_v32: 58 * 256,
  glm_moe_dsa: 75 * 256,
  mimo_v2_flash: 47 * 256,
  'mimo-dense-bias': 3 * 256,
  longcat_flash: 28 * (512 + 256),
};
// LongcatFlashExperts (transformers 5.14.1) allocates gate_up_proj for the zero-computation experts too, rows no
// checkpoint fills and no token multiplies; the reader counts the checkpoint's routed experts only.
const ZERO_EXPERT_ROWS: Record<string, number> = { longcat_flash: 28 * 256 * 2 * 2048 * 6144 };

describe("each family gives transformers' own count for its defaults", () => {
  const names = Object.keys(rows).filter((k) => !k.startsWith('_'));
  it.each(names)('%s', (name) => {
    const r = row(name);
    const a = arch(r.config);
    expect(a.architecture).not.toBe('unknown');
    expect(a.assumptions ?? []).toEqual([]);
    expect(paramCounts(a).total).toBe(
      r.params + (ROUTER_BIAS[name] ?? 0) - (ZERO_EXPERT_ROWS[name] ?? 0),
    );
  });
});

describe('DeepSeek Sparse Attention: the indexer and its key cache', () => {
  const v32 = arch(row('deepseek_v32').config);
  const v3 = arch({ ...row('deepseek_v32').config, model_type: 'deepseek_v3' });
  it('adds wq_b, wk, weights_proj and k_norm to every layer (61 x 13,959,424)', () => {
    const per = 1536 * 64 * 128 + 7168 * 128 + 7168 * 64 + 2 * 128;
    expect(paramCounts(v32).total - paramCounts(v3).total).toBe(61 * per);
  });
  it('caches 132 bytes a token a layer beside the latent (fp8 keys + one fp32 scale per 128)', () => {
    expect(kvOf(v32, 4096) - kvOf(v3, 4096)).toBe(61 * 132 * 4096);
  });
  it('a decode step reads every index key and the latents of the index_topk tokens picked', () => {
    const read = (ctx: number) =>
      decodeCacheBytes(v32, FRAMEWORKS.vllm, { c: 2, tp: 1, kvElem: 2 }, ctx);
    expect(read(1024)).toBe(61 * (576 * 2 + 132) * 1024);
    expect(read(65536)).toBe(61 * (576 * 2 * 2048 + 132 * 65536));
  });
  it('GLM-5: a "shared" indexer layer has no indexer and caches no index keys', () => {
    const cfg = row('glm_moe_dsa').config;
    const types = Array.from({ length: 78 }, (_, i) => (i % 4 === 3 ? 'shared' : 'full'));
    const shared = arch({ ...cfg, indexer_types: types });
    const full = arch(cfg);
    const per = 2048 * 32 * 128 + 6144 * 128 + 6144 * 32 + 2 * 128;
    expect(paramCounts(full).total - paramCounts(shared).total).toBe(19 * per);
    expect(kvOf(full, 1024) - kvOf(shared, 1024)).toBe(19 * 132 * 1024);
  });
});

describe('Gemma 4 / Gemma 3n: layers that read an earlier layer’s KV cache store none', () => {
  it('Gemma 4: k_eq_v full layers cache num_global_key_value_heads at global_head_dim; shared layers nothing', () => {
    const base = row('gemma4_text').config;
    const shared = arch(row('g4-keqv-shared').config);
    expect(decoderLayers(shared)).toBe(30);
    const seq = 8192;
    // Layers 0-19 cache (17 sliding at 4 KV heads x 256 within 512 tokens; layers 5, 11 and 17 full at 2 KV heads
    // x 512, K and V both kept as vLLM keeps them), 20-29 none.
    const sliding = 17 * 512 * 2 * 4 * 256 * 2;
    const full = 3 * seq * 2 * 2 * 512 * 2;
    expect(kvOf(shared, seq)).toBe(sliding + full);
    const plain = arch(base);
    expect(kvOf(plain, seq)).toBe(25 * 512 * 2 * 4 * 256 * 2 + 5 * seq * 2 * 4 * 512 * 2);
  });
  it('Gemma 3n: the last 15 of 35 layers share; a 4:1 sliding pattern caches 16 windows and 4 full layers', () => {
    const a = arch(row('gemma3n_text').config);
    const seq = 4096;
    expect(kvOf(a, seq)).toBe(16 * 512 * 2 * 2 * 256 * 2 + 4 * seq * 2 * 2 * 256 * 2);
  });
  it('per-layer embeddings are lookups: in embedParams, not in the layers', () => {
    const a = arch(row('gemma3n_text').config);
    expect(a.embedParams).toBe(262400 * 2048 + 262144 * 35 * 256);
  });
});

describe('a wrapper with no reader whose text_config names a read model_type', () => {
  const text = { ...row('deepseek_v32').config, model_type: 'deepseek_v3' };
  const wrapped = arch({
    model_type: 'kimi_k25',
    text_config: text,
    vision_config: { model_type: 'kimi_k25_vision', hidden_size: 1152 },
  });
  it('reads the language model with that reader (Kimi K2.5: DeepSeek-V3 MLA, not 128 full KV heads)', () => {
    expect(paramCounts(wrapped).total).toBe(paramCounts(arch(text)).total);
    expect(kvOf(wrapped, 1000)).toBe(61 * 576 * 2 * 1000);
  });
  it('says the towers are not read', () => {
    expect(wrapped.assumptions).toEqual([
      "model_type 'kimi_k25' is not one vramplan reads: its text_config read as 'deepseek_v3'",
      'vision_config: not read (no tower counted)',
    ]);
  });
});

describe('DBRX (dbrx): nested attn_config / ffn_config', () => {
  // databricks/dbrx-base config.json's sizes; "132B total parameters of which 36B parameters are active on any
  // input" (https://www.databricks.com/blog/introducing-dbrx-new-state-art-open-llm).
  const a = arch({
    model_type: 'dbrx',
    d_model: 6144,
    n_heads: 48,
    n_layers: 40,
    max_seq_len: 32768,
    vocab_size: 100352,
    attn_config: { kv_n_heads: 8, clip_qkv: 8, rope_theta: 500000 },
    ffn_config: { ffn_hidden_size: 10752, moe_num_experts: 16, moe_top_k: 4 },
  });
  it('132B total, 36B active', () => {
    const p = paramCounts(a);
    expect(Math.abs(p.total - 132e9) / 132e9).toBeLessThan(0.005);
    expect(Math.abs(p.active - 36e9) / 36e9).toBeLessThan(0.02);
  });
  it('8 KV heads of 128 a layer', () => {
    expect(kvOf(a, 1000)).toBe(40 * 2 * 8 * 128 * 2 * 1000);
  });
});

describe('a model_type with no reader: shared experts under either name', () => {
  // A Ling 2.0-style config (model_type bailing_moe_v2, which transformers does not map): num_shared_experts.
  const base = {
    model_type: 'bailing_moe_v2',
    hidden_size: 2048,
    intermediate_size: 5120,
    moe_intermediate_size: 512,
    num_experts: 256,
    num_experts_per_tok: 8,
    first_k_dense_replace: 1,
    num_hidden_layers: 20,
    num_attention_heads: 16,
    num_key_value_heads: 4,
    head_dim: 128,
    vocab_size: 157184,
    max_position_embeddings: 32768,
  };
  it('num_shared_experts adds one shared MLP of moe_intermediate_size each, on the MoE layers', () => {
    const none = paramCounts(arch(base)).total;
    const one = paramCounts(arch({ ...base, num_shared_experts: 1 })).total;
    const viaN = paramCounts(arch({ ...base, n_shared_experts: 1 })).total;
    expect(one - none).toBe(19 * 3 * 2048 * 512);
    expect(viaN).toBe(one);
  });
});
