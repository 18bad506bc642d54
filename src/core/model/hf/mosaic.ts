/**
 * Decoders whose configs name their fields their own way, read through the llama-like builder under the standard
 * names: MPT and DBRX (MosaicML / Databricks) and GPT-Neo (EleutherAI). MPT and GPT-Neo reproduce transformers
 * 5.14.1's parameter count for the class's default config (test/core/models-defaults.test.ts); DBRX, whose default
 * config transformers cannot build, its published 132B total.
 */
import { fusedModules } from './blocks.js';
import type { ArchBody } from './blocks.js';
import { Fields, isObject } from './fields.js';
import { llamaLike } from './llama.js';
import type { Moe } from './llama.js';

// HF MptConfig defaults: d_model=2048, n_heads=16, n_layers=24, max_seq_len=2048, vocab_size=50368,
// expansion_ratio=4 (configuration_mpt.py).
const MPT = { hidden: 2048, heads: 16, layers: 24, positions: 2048, vocab: 50368, expansion: 4 };

/**
 * MPT (modeling_mpt.py): Wqkv (one nn.Linear to q, k, v) and out_proj without bias, up_proj/down_proj without bias
 * around GELU (4 x d_model), norm_1/norm_2/norm_f LayerNorms whose bias is set to None, ALiBi (no position
 * embedding), lm_head tied to wte.
 */
export function mpt(c: Fields): ArchBody {
  const hidden = c.int('d_model', MPT.hidden);
  const heads = c.int('n_heads', MPT.heads);
  const attn = isObject(c.raw.attn_config) ? c.raw.attn_config : {};
  // MPT's attn_config.kv_n_heads (grouped-query) where a checkpoint sets it; HF MptAttention builds MHA.
  const kvHeads = typeof attn.kv_n_heads === 'number' ? attn.kv_n_heads : heads;
  const named = new Fields(
    {
      hidden_size: hidden,
      num_attention_heads: heads,
      num_key_value_heads: kvHeads,
      num_hidden_layers: c.int('n_layers', MPT.layers),
      intermediate_size: c.int('expansion_ratio', MPT.expansion) * hidden,
      vocab_size: c.int('vocab_size', MPT.vocab),
      max_position_embeddings: c.int('max_seq_len', MPT.positions),
    },
    c.path,
  );
  const body = llamaLike({
    tiedDefault: true,
    norm: 'layer',
    normBias: false,
    ungated: true,
    qkvBias: () => false,
    mlpBias: () => false,
  })(named);
  return fusedModules({ ...body, tiedEmbeddings: true, lmHeadParams: 0 }, { qkv: 'Wqkv' });
}

// HF GPTNeoConfig defaults: hidden_size=2048, num_heads=8, num_layers=24, max_position_embeddings=2048,
// vocab_size=50257, intermediate_size None (4 x hidden_size).
const NEO = { hidden: 2048, heads: 8, layers: 24, positions: 2048, vocab: 50257, ffnMult: 4 };

/**
 * GPT-Neo (modeling_gpt_neo.py): q/k/v_proj without bias, out_proj with bias, c_fc/c_proj with bias around GELU,
 * ln_1/ln_2/ln_f LayerNorms with bias, a learned position embedding wpe (max_position_embeddings rows), lm_head tied
 * to wte. Its local layers mask the attention to window_size tokens but keep every token in the cache
 * (GPTNeoSelfAttention builds the window into the causal mask), so no layer is read as a sliding window.
 */
export function gptNeo(c: Fields): ArchBody {
  const hidden = c.int('hidden_size', NEO.hidden);
  const positions = c.int('max_position_embeddings', NEO.positions);
  const named = new Fields(
    {
      hidden_size: hidden,
      num_attention_heads: c.int('num_heads', NEO.heads),
      num_hidden_layers: c.int('num_layers', NEO.layers),
      intermediate_size: c.count('intermediate_size', 0) || NEO.ffnMult * hidden,
      vocab_size: c.int('vocab_size', NEO.vocab),
      max_position_embeddings: positions,
      tie_word_embeddings: c.bool('tie_word_embeddings', true),
    },
    c.path,
  );
  const body = llamaLike({
    tiedDefault: true,
    norm: 'layer',
    ungated: true,
    qkvBias: () => false,
    oBias: () => true,
    mlpBias: () => true,
  })(named);
  return { ...body, embedParams: body.embedParams + positions * hidden };
}

// HF DbrxConfig defaults (configuration_dbrx.py): d_model=2048, n_heads=16, n_layers=24, max_seq_len=2048,
// vocab_size=32000; attn_config kv_n_heads=1; ffn_config ffn_hidden_size=3584, moe_num_experts=4, moe_top_k=1.
const DBRX = {
  hidden: 2048,
  heads: 16,
  layers: 24,
  positions: 2048,
  vocab: 32000,
  kvHeads: 1,
  ffn: 3584,
  experts: 4,
  topK: 1,
};

/**
 * DBRX (modeling_dbrx.py): Wqkv (one nn.Linear to q and kv_n_heads of k and v) and out_proj without bias,
 * norm_1/norm_2/norm_f LayerNorms without bias, a router (Linear d_model -> moe_num_experts, no bias) over gated
 * experts w1/v1/w2 of ffn_hidden_size, moe_top_k a token; lm_head never tied (DbrxConfig raises on it).
 */
export function dbrx(c: Fields): ArchBody {
  const attn = new Fields(
    isObject(c.raw.attn_config) ? c.raw.attn_config : {},
    `${c.path}attn_config.`,
  );
  const ffn = new Fields(
    isObject(c.raw.ffn_config) ? c.raw.ffn_config : {},
    `${c.path}ffn_config.`,
  );
  const moe: Moe = {
    experts: ffn.int('moe_num_experts', DBRX.experts),
    topK: ffn.int('moe_top_k', DBRX.topK),
    topKKey: 'ffn_config.moe_top_k',
    ffn: ffn.int('ffn_hidden_size', DBRX.ffn),
    routerBias: false,
    expertBias: false,
    sharedFfn: 0,
    sharedGate: false,
  };
  const named = new Fields(
    {
      hidden_size: c.int('d_model', DBRX.hidden),
      num_attention_heads: c.int('n_heads', DBRX.heads),
      num_key_value_heads: attn.int('kv_n_heads', DBRX.kvHeads),
      num_hidden_layers: c.int('n_layers', DBRX.layers),
      intermediate_size: moe.ffn,
      vocab_size: c.int('vocab_size', DBRX.vocab),
      max_position_embeddings: c.int('max_seq_len', DBRX.positions),
      tie_word_embeddings: false,
    },
    c.path,
  );
  const body = llamaLike({
    tiedDefault: false,
    norm: 'layer',
    normBias: false,
    qkvBias: () => false,
    moe: () => moe,
  })(named);
  return fusedModules(body, { qkv: 'Wqkv' });
}
