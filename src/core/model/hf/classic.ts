/** Classic GPT-style decoders: LayerNorm with bias and 2-matrix MLPs (GPT-2, GPT-J, GPT-NeoX, Phi, Falcon, BLOOM, OPT). */
import type { LayerGroup } from '../arch.js';
import {
  attention,
  fusedModules,
  group,
  hasDropout,
  headDimOf,
  lmHead,
  mlp,
  normSize,
} from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { Fields } from './fields.js';
import { DEFAULT_MAX_POSITIONS } from './llama.js';

// ---------------------------------------------------------------------------------------------
// Classic GPT-style decoders with LayerNorm(+bias) and 2-matrix MLPs

interface Classic {
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  layers: number;
  ffn: number;
  qkvBias: boolean;
  oBias: boolean;
  mlpBias: boolean;
  normsPerLayer: number;
  parallel: boolean;
  dropout: boolean;
  extraPerLayer?: number;
}

export function classicGroup(k: Classic): LayerGroup {
  const base: GroupBase = {
    name: 'decoder',
    hidden: k.hidden,
    heads: k.heads,
    kvHeads: k.kvHeads,
    headDim: k.headDim,
    vHeadDim: k.headDim,
    ffn: k.ffn,
    gated: false,
    experts: 1,
    topK: 1,
    norm: 'layer',
    normsPerLayer: k.normsPerLayer,
    parallelResidual: k.parallel,
    dropout: k.dropout,
    causal: true,
    crossAttention: false,
    slidingWindow: null,
    mlaCacheWidth: null,
  };
  const linears = [...attention(k, k.qkvBias, k.oBias), ...mlp(k.hidden, k.ffn, false, k.mlpBias)];
  return group(
    base,
    linears,
    k.normsPerLayer * normSize(k.hidden, true) + (k.extraPerLayer ?? 0),
    k.layers,
  );
}

interface ClassicBody {
  g: Classic;
  vocab: number;
  tied: boolean;
  positions: number;
  /** Learned position embedding rows (0 for RoPE/ALiBi). */
  positionRows: number;
  lmHeadBias?: boolean;
  /** Final norm, embedding norm, projections. */
  otherParams: number;
}

function classicArch(b: ClassicBody): ArchBody {
  return {
    kind: 'causal-lm',
    groups: [classicGroup(b.g)],
    hidden: b.g.hidden,
    vocab: b.vocab,
    tiedEmbeddings: b.tied,
    embedParams: (b.vocab + b.positionRows) * b.g.hidden,
    lmHeadParams: lmHead(b.tied, b.vocab, b.g.hidden, b.lmHeadBias),
    otherParams: b.otherParams,
    maxPositions: b.positions,
  };
}

// HF GPT2Config / GPTBigCodeConfig / GPTJConfig: n_inner=None means 4 * n_embd.
const FFN_MULT = 4;

/** GPT-2 and GPT-BigCode (MQA when multi_query, HF GPTBigCodeConfig default multi_query=True). */
export function gpt2(bigcode: boolean) {
  return (c: Fields): ArchBody => {
    const hidden = c.int(['n_embd', 'hidden_size']);
    const heads = c.int(['n_head', 'num_attention_heads']);
    const positions = c.int(['n_positions', 'max_position_embeddings'], 1024);
    const mqa = bigcode && c.bool('multi_query', true);
    // GPT2Attention.c_attn (Conv1D, modeling_gpt2.py) / GPTBigCodeAttention.c_attn (nn.Linear to q + 2 x kv,
    // modeling_gpt_bigcode.py), transformers 5.14.1: q, k and v are one module.
    return fusedModules(
      classicArch({
        g: {
          hidden,
          heads,
          kvHeads: mqa ? 1 : heads,
          headDim: headDimOf(c, hidden, heads),
          layers: c.int(['n_layer', 'num_hidden_layers']),
          ffn: c.int('n_inner', FFN_MULT * hidden),
          qkvBias: true,
          oBias: true,
          mlpBias: true,
          normsPerLayer: 2,
          parallel: false,
          // HF GPT2Config/GPTBigCodeConfig default resid_pdrop = embd_pdrop = attn_pdrop = 0.1.
          dropout: hasDropout(c, { resid_pdrop: 0.1, attn_pdrop: 0.1, embd_pdrop: 0.1 }),
        },
        vocab: c.int('vocab_size'),
        tied: c.bool('tie_word_embeddings', true),
        positions,
        positionRows: positions,
        otherParams: normSize(hidden, true),
      }),
      { qkv: 'c_attn' },
    );
  };
}

export function gptj(c: Fields): ArchBody {
  const hidden = c.int(['n_embd', 'hidden_size']);
  const heads = c.int(['n_head', 'num_attention_heads']);
  return classicArch({
    g: {
      hidden,
      heads,
      kvHeads: heads,
      headDim: headDimOf(c, hidden, heads),
      layers: c.int(['n_layer', 'num_hidden_layers']),
      ffn: c.int('n_inner', FFN_MULT * hidden),
      // HF GPTJAttention: q/k/v/out_proj bias=False; GPTJMLP fc_in/fc_out have biases.
      qkvBias: false,
      oBias: false,
      mlpBias: true,
      normsPerLayer: 1,
      parallel: true,
      dropout: hasDropout(c, { resid_pdrop: 0, attn_pdrop: 0, embd_pdrop: 0 }),
    },
    vocab: c.int('vocab_size'),
    // HF GPTJConfig default tie_word_embeddings=False; GPTJForCausalLM lm_head has a bias.
    tied: c.bool('tie_word_embeddings', false),
    lmHeadBias: true,
    positions: c.int(['n_positions', 'max_position_embeddings'], DEFAULT_MAX_POSITIONS),
    positionRows: 0,
    otherParams: normSize(hidden, true),
  });
}

export function gptNeox(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  // HF GPTNeoXConfig defaults: attention_bias=True, use_parallel_residual=True, tie_word_embeddings=False.
  const parallel = c.bool('use_parallel_residual', true);
  const bias = c.bool('attention_bias', true);
  // GPTNeoXAttention.query_key_value (modeling_gpt_neox.py, transformers 5.14.1): q, k and v are one nn.Linear.
  return fusedModules(
    classicArch({
      g: {
        hidden,
        heads,
        kvHeads: heads,
        headDim: headDimOf(c, hidden, heads),
        layers: c.int('num_hidden_layers'),
        ffn: c.int('intermediate_size'),
        qkvBias: bias,
        oBias: bias,
        mlpBias: true,
        // GPT-NeoX keeps input_layernorm and post_attention_layernorm even with the parallel residual.
        normsPerLayer: 2,
        parallel,
        dropout: hasDropout(c, {}),
      },
      vocab: c.int('vocab_size'),
      tied: c.bool('tie_word_embeddings', false),
      positions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
      positionRows: 0,
      otherParams: normSize(hidden, true),
    }),
    { qkv: 'query_key_value' },
  );
}

export function phi(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const headDim = headDimOf(c, hidden, heads);
  return classicArch({
    g: {
      hidden,
      heads,
      kvHeads: c.int('num_key_value_heads', heads),
      headDim,
      layers: c.int('num_hidden_layers'),
      ffn: c.int('intermediate_size'),
      qkvBias: true,
      oBias: true,
      mlpBias: true,
      normsPerLayer: 1,
      parallel: true,
      dropout: hasDropout(c, { resid_pdrop: 0, embd_pdrop: 0 }),
      // HF PhiAttention qk_layernorm: LayerNorm(head_dim) on q and on k.
      extraPerLayer: c.bool('qk_layernorm', false) ? 2 * normSize(headDim, true) : 0,
    },
    vocab: c.int('vocab_size'),
    // HF PhiConfig default tie_word_embeddings=False; PhiForCausalLM lm_head has a bias.
    tied: c.bool('tie_word_embeddings', false),
    lmHeadBias: true,
    positions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
    positionRows: 0,
    otherParams: normSize(hidden, true),
  });
}

export function falcon(legacy40b: boolean) {
  return (c: Fields): ArchBody => {
    const hidden = c.int(['hidden_size', 'n_embed']);
    const heads = c.int(['num_attention_heads', 'n_head']);
    // RefinedWeb (Falcon-40B legacy config) is the new decoder architecture.
    const newArch = c.bool('new_decoder_architecture', legacy40b);
    // HF FalconConfig defaults: multi_query=True, parallel_attn=True, bias=False, tie_word_embeddings=True.
    const kvHeads = newArch
      ? c.int(['num_kv_heads', 'n_head_kv'], heads)
      : c.bool('multi_query', true)
        ? 1
        : heads;
    const parallel = newArch || c.bool('parallel_attn', true);
    // HF FalconDecoderLayer: new arch has ln_attn + ln_mlp (num_ln_in_parallel_attn default 2).
    const norms = newArch ? c.int('num_ln_in_parallel_attn', 2) : parallel ? 1 : 2;
    const bias = c.bool('bias', false);
    // FalconAttention.query_key_value (modeling_falcon.py, transformers 5.14.1): q, k and v are one nn.Linear
    // in every layout (multi-query, grouped new_decoder_architecture, multi-head).
    return fusedModules(
      classicArch({
        g: {
          hidden,
          heads,
          kvHeads,
          headDim: headDimOf(c, hidden, heads),
          layers: c.int(['num_hidden_layers', 'n_layer']),
          ffn: c.int('ffn_hidden_size', FFN_MULT * hidden),
          qkvBias: bias,
          oBias: bias,
          mlpBias: bias,
          normsPerLayer: norms,
          parallel,
          dropout: hasDropout(c, {}),
        },
        vocab: c.int('vocab_size'),
        tied: c.bool('tie_word_embeddings', true),
        positions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
        positionRows: 0,
        otherParams: normSize(hidden, true),
      }),
      { qkv: 'query_key_value' },
    );
  };
}

// BLOOM uses ALiBi (no max_position_embeddings); 2048 is its training sequence length (BLOOM paper, sec. 3.5).
const BLOOM_TRAIN_SEQ = 2048;

export function bloom(c: Fields): ArchBody {
  const hidden = c.int(['hidden_size', 'n_embed']);
  const heads = c.int(['n_head', 'num_attention_heads']);
  // BloomAttention.query_key_value (modeling_bloom.py, transformers 5.14.1): q, k and v are one nn.Linear.
  const body = fusedModules(
    classicArch({
      g: {
        hidden,
        heads,
        kvHeads: heads,
        headDim: headDimOf(c, hidden, heads),
        layers: c.int(['n_layer', 'num_hidden_layers']),
        ffn: FFN_MULT * hidden,
        qkvBias: true,
        oBias: true,
        mlpBias: true,
        normsPerLayer: 2,
        parallel: false,
        dropout: hasDropout(c, {}),
      },
      vocab: c.int('vocab_size'),
      tied: c.bool('tie_word_embeddings', true),
      positions: c.int('seq_length', BLOOM_TRAIN_SEQ),
      positionRows: 0,
      // word_embeddings_layernorm + ln_f.
      otherParams: 2 * normSize(hidden, true),
    }),
    { qkv: 'query_key_value' },
  );
  return { ...body, unboundedPositions: true };
}

// HF OPTLearnedPositionalEmbedding: num_embeddings + 2 (fairseq padding offset).
const OPT_POSITION_OFFSET = 2;

export function opt(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const proj = c.int('word_embed_proj_dim', hidden);
  const positions = c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS);
  const bias = c.bool('enable_bias', true);
  // HF OPTDecoder: project_in/project_out (no bias) when word_embed_proj_dim != hidden_size.
  const projections = proj === hidden ? 0 : 2 * proj * hidden;
  const finalNorm = c.bool('do_layer_norm_before', true) ? normSize(hidden, true) : 0;
  const vocab = c.int('vocab_size');
  const tied = c.bool('tie_word_embeddings', true);
  const body = classicArch({
    g: {
      hidden,
      heads,
      kvHeads: heads,
      headDim: headDimOf(c, hidden, heads),
      layers: c.int('num_hidden_layers'),
      ffn: c.int('ffn_dim'),
      qkvBias: bias,
      oBias: bias,
      mlpBias: bias,
      normsPerLayer: 2,
      parallel: false,
      // HF OPTConfig default dropout=0.1.
      dropout: hasDropout(c, { dropout: 0.1 }),
    },
    vocab,
    tied,
    positions,
    positionRows: 0,
    otherParams: projections + finalNorm,
  });
  return {
    ...body,
    hidden: proj,
    embedParams: vocab * proj + (positions + OPT_POSITION_OFFSET) * hidden,
    lmHeadParams: lmHead(tied, vocab, proj),
  };
}
