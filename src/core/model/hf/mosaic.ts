/**
 * Decoders whose configs name their fields their own way, read through the llama-like builder under the standard
 * names: MPT (MosaicML) and GPT-Neo (EleutherAI). Each reproduces transformers 5.14.1's parameter count for the
 * class's default config (test/core/models-ungated.test.ts).
 */
import { fusedModules } from './blocks.js';
import type { ArchBody } from './blocks.js';
import { Fields, isObject } from './fields.js';
import { llamaLike } from './llama.js';

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
