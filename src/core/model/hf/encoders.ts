/** Encoders and encoder-decoders (BERT, T5) and Mllama (Llama 3.2 Vision) with its vision tower. */
import type { LayerGroup } from '../arch.js';
import { attention, group, hasDropout, headDimOf, mlp, normSize } from './blocks.js';
import type { ArchBody, AttnDims, GroupBase } from './blocks.js';
import { classicGroup } from './classic.js';
import { ConfigError, Fields } from './fields.js';
import { DEFAULT_MAX_POSITIONS, llamaLike, vocabFields } from './llama.js';

// ---------------------------------------------------------------------------------------------
// Encoders and encoder-decoders

export function bert(c: Fields, architecture: string): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const positions = c.int('max_position_embeddings', 512);
  const vocab = c.int('vocab_size');
  const g = classicGroup({
    hidden,
    heads,
    kvHeads: heads,
    headDim: headDimOf(c, hidden, heads),
    layers: c.int('num_hidden_layers'),
    ffn: c.int('intermediate_size'),
    qkvBias: true,
    oBias: true,
    mlpBias: true,
    normsPerLayer: 2,
    parallel: false,
    // HF BertConfig defaults hidden_dropout_prob = attention_probs_dropout_prob = 0.1.
    dropout: hasDropout(c, { hidden_dropout_prob: 0.1, attention_probs_dropout_prob: 0.1 }),
  });
  const dense = hidden * hidden + hidden;
  // BertLMPredictionHead: transform dense + LayerNorm, decoder tied to word embeddings, decoder bias.
  const mlmHead = dense + normSize(hidden, true) + vocab;
  const pooler = dense;
  // BertForPreTraining's NSP head: Linear(hidden, 2).
  const NSP_CLASSES = 2;
  const head = architecture.includes('MaskedLM')
    ? mlmHead
    : architecture.includes('PreTraining')
      ? mlmHead + pooler + NSP_CLASSES * (hidden + 1)
      : pooler;
  return {
    kind: 'encoder',
    groups: [{ ...g, name: 'encoder', causal: false }],
    hidden,
    vocab,
    tiedEmbeddings: c.bool('tie_word_embeddings', true),
    embedParams: (vocab + positions + c.int('type_vocab_size', 2)) * hidden,
    lmHeadParams: 0,
    // Embedding LayerNorm + head.
    otherParams: normSize(hidden, true) + head,
    maxPositions: positions,
  };
}

// T5 has relative positions; 512 is the pre-training input length (T5 paper, sec. 3.1.2).
const T5_TRAIN_SEQ = 512;

export function t5(tiedDefault: boolean) {
  return (c: Fields): ArchBody => {
    const hidden = c.int('d_model');
    const heads = c.int('num_heads');
    const d: AttnDims = { hidden, heads, kvHeads: heads, headDim: c.int('d_kv') };
    const ffn = c.int('d_ff');
    const proj = c.str('feed_forward_proj', 'relu');
    const gated = proj.startsWith('gated-');
    const vocab = c.int('vocab_size');
    const encoderLayers = c.int('num_layers');
    const dropout = hasDropout(c, { dropout_rate: 0.1 });
    const base: GroupBase = {
      name: 'encoder',
      hidden,
      heads,
      kvHeads: heads,
      headDim: d.headDim,
      vHeadDim: d.headDim,
      ffn,
      gated,
      experts: 1,
      topK: 1,
      norm: 'rms',
      normsPerLayer: 2,
      parallelResidual: false,
      dropout,
      causal: false,
      crossAttention: false,
      slidingWindow: null,
      mlaCacheWidth: null,
    };
    const ff = mlp(hidden, ffn, gated, false);
    const encoder = group(base, [...attention(d, false, false), ...ff], 2 * hidden, encoderLayers);
    const decoder = group(
      { ...base, name: 'decoder', causal: true, crossAttention: true, normsPerLayer: 3 },
      [...attention(d, false, false), ...attention(d, false, false, hidden, true), ...ff],
      3 * hidden,
      c.int('num_decoder_layers', encoderLayers),
    );
    const tied = c.bool('tie_word_embeddings', tiedDefault);
    // relative_attention_bias (buckets x heads) in the first layer of each stack, plus two final norms.
    const relBias = 2 * c.int('relative_attention_num_buckets', 32) * heads;
    return {
      kind: 'encoder-decoder',
      groups: [encoder, decoder],
      hidden,
      ...vocabFields(vocab, hidden, tied),
      otherParams: relBias + 2 * hidden,
      maxPositions: c.int('n_positions', T5_TRAIN_SEQ),
      unboundedPositions: true,
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Mllama (Llama 3.2 Vision): text decoder + cross-attention layers + vision tower

// HF MllamaTextModel: embed_tokens has vocab_size + 8 rows (image and reserved special tokens).
const MLLAMA_EXTRA_TOKENS = 8;
// HF MllamaVisionModel patch_embedding: Conv2d(num_channels, hidden, patch, stride=patch, bias=False).
export const RGB_CHANNELS = 3;

export function mllama(c: Fields): ArchBody {
  const t = c.sub('text_config');
  const text = llamaLike({ tiedDefault: false })(
    new Fields({ ...t.raw, num_hidden_layers: 1 }, t.path),
  );
  const self = text.groups[0];
  if (!self) throw new ConfigError(`${t.path}num_hidden_layers`, 0, 'a positive integer');
  const layers = t.int('num_hidden_layers');
  const crossIdx = t.intList('cross_attention_layers');
  if (new Set(crossIdx).size !== crossIdx.length || crossIdx.some((i) => i >= layers))
    throw new ConfigError(
      `${t.path}cross_attention_layers`,
      crossIdx,
      `distinct layer indices below num_hidden_layers ${layers}`,
    );
  const hidden = self.hidden;
  const d: AttnDims = { hidden, heads: self.heads, kvHeads: self.kvHeads, headDim: self.headDim };
  const mlpLins = self.linears.filter((l) => ['gate', 'up', 'down'].includes(l.role));
  // MllamaCrossAttentionDecoderLayer: cross q/k/v/o, q_norm + k_norm, 2 norms, 2 tanh gates.
  const cross = group(
    { ...self, name: 'cross', crossAttention: true, slidingWindow: null },
    [...attention(d, false, false, hidden, true), ...mlpLins],
    2 * d.headDim + 2 * hidden + 2,
    crossIdx.length,
  );
  const vocab = t.int('vocab_size');
  const v = vision(c.sub('vision_config'));
  // multi_modal_projector: Linear(vision_output_dim, text hidden, bias=True).
  const projector = v.outputDim * hidden + hidden;
  return {
    ...text,
    groups: [{ ...self, count: layers - crossIdx.length }, cross, ...v.groups],
    embedParams: (vocab + MLLAMA_EXTRA_TOKENS) * hidden,
    otherParams: text.otherParams + v.otherParams + projector,
    outerLinears: [{ inFeatures: v.outputDim, outFeatures: hidden, blockLeaf: false }],
    maxPositions: t.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
  };
}

export function vision(v: Fields): {
  groups: LayerGroup[];
  otherParams: number;
  outputDim: number;
} {
  const hidden = v.int('hidden_size');
  const heads = v.int(['attention_heads', 'num_attention_heads']);
  const local = v.int('num_hidden_layers');
  const global = v.count('num_global_layers', 0);
  const patch = v.int('patch_size');
  const tiles = v.int('max_num_tiles');
  const image = v.int('image_size');
  const aspectRatios = Array.isArray(v.raw.supported_aspect_ratios)
    ? v.raw.supported_aspect_ratios.length
    : tiles;
  const patches = (image / patch) ** 2 + 1; // + class token
  const headDim = headDimOf(v, hidden, heads);
  const g = classicGroup({
    hidden,
    heads,
    kvHeads: heads,
    headDim,
    layers: local + global,
    ffn: v.int('intermediate_size'),
    qkvBias: false,
    oBias: false,
    mlpBias: true,
    normsPerLayer: 2,
    parallel: false,
    dropout: false,
  });
  // Aspect-ratio embeddings have max_aspect_ratio_id + 1 rows (row 0 = padding).
  const ratioRows = aspectRatios + 1;
  const embeddings =
    RGB_CHANNELS * patch * patch * hidden + // patch_embedding
    hidden + // class_embedding
    patches * hidden +
    1 + // gated positional embedding + gate
    ratioRows * tiles * patches * hidden + // tile positional embedding
    2 * (ratioRows * tiles * hidden + 1) + // pre/post tile positional embeddings + gates
    2 * normSize(hidden, true) + // layernorm_pre, layernorm_post
    2 * global; // gate_attn, gate_ffn of each global layer
  // MllamaVisionMLP fc1 / fc2 (transformers 5.14.1 modeling_mllama.py): no contract target names them.
  const linears = g.linears.map((l) =>
    l.role === 'up' || l.role === 'down' ? { ...l, role: 'other' as const } : l,
  );
  return {
    groups: [{ ...g, linears, name: 'vision', causal: false }],
    otherParams: embeddings,
    outputDim: v.int('vision_output_dim'),
  };
}
