/**
 * Gemma 4 (gemma4_text, and the gemma4 wrapper's language model): Gemma 3's sandwich-norm layers with per-layer
 * embeddings (PLE), full-attention layers of their own head width and KV heads (K reused as V), layers that read an
 * earlier layer's KV cache, and an optional MoE block beside the dense MLP. Read from transformers 5.14.1
 * modeling_gemma4.py / configuration_gemma4.py and vLLM v0.19.0 vllm/model_executor/models/gemma4.py.
 */
import type { LayerGroup, Linear } from '../arch.js';
import { group, hasDropout, lin, mergeLayers, mlp } from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { ConfigError, Fields, MAX_LAYERS, isObject } from './fields.js';
import { vocabFields } from './llama.js';

// Gemma4TextConfig defaults (configuration_gemma4.py): head_dim=256, global_head_dim=512, sliding_window=512,
// vocab_size_per_layer_input=262144, hidden_size_per_layer_input=256, max_position_embeddings=131072,
// tie_word_embeddings=True; layer_types, when absent, "sliding_attention" unless (i + 1) % 6 == 0.
const G4 = {
  headDim: 256,
  globalHeadDim: 512,
  window: 512,
  pleVocab: 262144,
  ple: 256,
  positions: 131072,
  pattern: 6,
};

/** What every Gemma 4 / Gemma 3n layer reads from the config. */
interface Shared {
  hidden: number;
  heads: number;
  layers: number;
  types: string[];
  firstShared: number;
  ple: number;
  bias: boolean;
  dropout: boolean;
  /** Head width of the full-attention layers (Gemma 4 global_head_dim); null: head_dim on every layer. */
  globalHeadDim: number | null;
  /** The dense MLP's width on layer i (Gemma 3n: one intermediate_size per layer). */
  ffn: (i: number) => number;
  /** Modules of the layer beyond Gemma 4's (Gemma 3n AltUp and LAuReL). */
  extra?: { linears: Linear[]; params: number };
}

/**
 * Gemma4TextRouter (proj hidden -> experts, a scale of hidden and a per_expert_scale of experts) and
 * Gemma4TextExperts (gate_up_proj, down_proj of moe_intermediate_size) with post_feedforward_layernorm_1/_2 and
 * pre_feedforward_layernorm_2, when enable_moe_block.
 */
function moeBlock(
  c: Fields,
  hidden: number,
): { linears: Linear[]; params: number; experts: number; topK: number; ffn: number } | null {
  if (!c.bool('enable_moe_block', false)) return null;
  const experts = c.int('num_experts');
  const topK = c.int('top_k_experts');
  const ffn = c.int('moe_intermediate_size');
  return {
    linears: [
      lin('router', hidden, experts, false),
      ...mlp(hidden, ffn, true, false, experts, topK),
    ],
    params: hidden + experts + 3 * hidden,
    experts,
    topK,
    ffn,
  };
}

// Long on purpose: one Gemma4TextDecoderLayer, its attention, MLP, PLE and MoE parts read in module order.
function layer(c: Fields, s: Shared, i: number): LayerGroup {
  const sliding = s.types[i] === 'sliding_attention';
  const headDim = !sliding && s.globalHeadDim ? s.globalHeadDim : c.int('head_dim', G4.headDim);
  // Gemma4TextAttention: a full layer with attention_k_eq_v has num_global_key_value_heads and no v_proj; a layer
  // from num_hidden_layers - num_kv_shared_layers on has neither k_proj, v_proj, k_norm nor v_norm.
  const kEqV = !sliding && c.bool('attention_k_eq_v', false);
  const kvHeads = kEqV
    ? c.int(['num_global_key_value_heads', 'num_key_value_heads'])
    : c.int('num_key_value_heads', s.heads);
  const shared = i >= s.firstShared;
  const h = s.hidden;
  const attn: Linear[] = [
    lin('q', h, s.heads * headDim, s.bias),
    ...(shared ? [] : [lin('k', h, kvHeads * headDim, s.bias)]),
    ...(shared || kEqV ? [] : [lin('v', h, kvHeads * headDim, s.bias)]),
    lin('o', s.heads * headDim, h, s.bias),
  ];
  // Gemma4TextMLP: intermediate_size, doubled on KV-shared layers when use_double_wide_mlp.
  const ffn = s.ffn(i) * (shared && c.bool('use_double_wide_mlp', false) ? 2 : 1);
  const moe = moeBlock(c, h);
  const pleLinears =
    s.ple > 0 ? [lin('other', h, s.ple, false), lin('other', s.ple, h, false)] : [];
  const base: GroupBase = {
    name: 'decoder',
    hidden: h,
    heads: s.heads,
    kvHeads,
    headDim,
    vHeadDim: headDim,
    ffn: moe ? moe.ffn : ffn,
    gated: true,
    experts: moe ? moe.experts : 1,
    topK: moe ? moe.topK : 1,
    norm: 'rms',
    normsPerLayer: 4,
    parallelResidual: false,
    dropout: s.dropout,
    causal: true,
    crossAttention: false,
    slidingWindow: sliding ? c.int('sliding_window', G4.window) : null,
    mlaCacheWidth: null,
  };
  // q_norm (head_dim), k_norm (head_dim) on layers with a k_proj (v_norm has no weight), 4 sandwich norms,
  // post_per_layer_input_norm with PLE.
  const other =
    headDim +
    (shared ? 0 : headDim) +
    4 * h +
    (s.ple > 0 ? h : 0) +
    (moe?.params ?? 0) +
    (s.extra?.params ?? 0);
  const linears = [
    ...attn,
    ...mlp(h, ffn, true, false),
    ...pleLinears,
    ...(moe?.linears ?? []),
    ...(s.extra?.linears ?? []),
  ];
  const g: LayerGroup = { ...group(base, linears, other), qkNorm: 'head' };
  return shared ? { ...g, kvShared: true } : g;
}

/** How a Gemma 4 or Gemma 3n text model differs: its defaults and the parts outside the Gemma 4 layer. */
interface Variant {
  pattern: number;
  /** First KV-shared layer for num_kv_shared_layers n of L layers. */
  firstShared: (n: number, layers: number) => number;
  numKvShared: number;
  globalHeadDim: (c: Fields) => number | null;
  ffn: (c: Fields, layers: number) => (i: number) => number;
  extra?: (c: Fields, hidden: number) => { linears: Linear[]; params: number };
  /** Model-level parameters beyond embeddings, PLE projection and the final norm. */
  modelParams?: (c: Fields, hidden: number) => number;
  positions: number;
}

/** The text model: embed_tokens, embed_tokens_per_layer and per_layer_model_projection with PLE, the final norm. */
function pleText(c: Fields, v: Variant): ArchBody {
  const hidden = c.int('hidden_size');
  const layers = c.int('num_hidden_layers', undefined, MAX_LAYERS);
  const types =
    c.strList('layer_types') ??
    Array.from({ length: layers }, (_, i) =>
      (i + 1) % v.pattern ? 'sliding_attention' : 'full_attention',
    );
  // hidden_size_per_layer_input: the class default where absent, no PLE where the config sets it null or 0.
  const ple = Object.hasOwn(c.raw, 'hidden_size_per_layer_input')
    ? c.count('hidden_size_per_layer_input', 0)
    : G4.ple;
  const s: Shared = {
    hidden,
    heads: c.int('num_attention_heads'),
    layers,
    types,
    firstShared: v.firstShared(c.count('num_kv_shared_layers', v.numKvShared), layers),
    ple,
    bias: c.bool('attention_bias', false),
    dropout: hasDropout(c, {}),
    globalHeadDim: v.globalHeadDim(c),
    ffn: v.ffn(c, layers),
    ...(v.extra ? { extra: v.extra(c, hidden) } : {}),
  };
  const vocab = c.int('vocab_size');
  const tied = c.bool('tie_word_embeddings', true);
  const perLayerVocab = ple > 0 ? c.int('vocab_size_per_layer_input', G4.pleVocab) : 0;
  const fields = vocabFields(vocab, hidden, tied);
  return {
    kind: 'causal-lm',
    groups: mergeLayers(Array.from({ length: layers }, (_, i) => layer(c, s, i))),
    hidden,
    ...fields,
    // The per-layer embedding is a lookup like embed_tokens (one row a token).
    embedParams: fields.embedParams + perLayerVocab * layers * ple,
    otherParams:
      hidden + (ple > 0 ? hidden * layers * ple + ple : 0) + (v.modelParams?.(c, hidden) ?? 0),
    maxPositions: c.int('max_position_embeddings', v.positions),
  };
}

const GEMMA4: Variant = {
  pattern: G4.pattern,
  // vLLM gemma4.py: KV sharing only where num_kv_shared_layers > 0.
  firstShared: (n, layers) => (n > 0 ? layers - n : layers),
  numKvShared: 0,
  globalHeadDim: (c) => c.int('global_head_dim', G4.globalHeadDim),
  ffn: (c) => () => c.int('intermediate_size'),
  positions: G4.positions,
};

/** Gemma4TextModel; configuration_gemma4.py forces the last layer to full_attention. */
export function gemma4Text(c: Fields): ArchBody {
  const layers = c.int('num_hidden_layers', undefined, MAX_LAYERS);
  const types = c.strList('layer_types');
  if (!types) return pleText(c, GEMMA4);
  const forced = [...types];
  forced[layers - 1] = 'full_attention';
  return pleText(new Fields({ ...c.raw, layer_types: forced }, c.path), GEMMA4);
}

// Gemma3nTextConfig defaults (configuration_gemma3n.py): layer_types full every 5th layer, num_kv_shared_layers=15,
// altup_num_inputs=4, laurel_rank=64, max_position_embeddings=32768.
const G3N = { pattern: 5, kvShared: 15, altup: 4, laurel: 64, positions: 32768 };

/**
 * Gemma 3n (modeling_gemma3n.py): the Gemma 4 layer with head_dim everywhere, an intermediate_size per layer, and per
 * layer Gemma3nTextAltUp (correct_output_scale hidden, correction_coefs n x n, prediction_coefs n x n^2,
 * modality_router hidden x n, router_norm hidden) and Gemma3nTextLaurelBlock (linear_left hidden -> laurel_rank,
 * linear_right back, post_laurel_norm); the model adds altup_projections and altup_unembed_projections, n - 1
 * hidden x hidden linears each. Its KV-shared layers start at num_hidden_layers - num_kv_shared_layers when that is
 * above 0 (Gemma3nTextAttention).
 */
const GEMMA3N: Variant = {
  pattern: G3N.pattern,
  firstShared: (n, layers) => (layers - n > 0 ? layers - n : layers),
  numKvShared: G3N.kvShared,
  globalHeadDim: () => null,
  ffn: (c, layers) => {
    if (!Array.isArray(c.raw.intermediate_size)) return () => c.int('intermediate_size');
    const list = c.intList('intermediate_size');
    if (list.length !== layers)
      throw new ConfigError(
        `${c.path}intermediate_size`,
        `${list.length} entries`,
        `one per layer (num_hidden_layers ${layers})`,
      );
    return (i) => list[i] ?? 0;
  },
  extra: (c, h) => {
    const n = c.int('altup_num_inputs', G3N.altup);
    const rank = c.int('laurel_rank', G3N.laurel);
    return {
      linears: [lin('other', h, rank, false), lin('other', rank, h, false)],
      params: h + n * n + n * n * n + h * n + h + h,
    };
  },
  modelParams: (c, h) => 2 * (c.int('altup_num_inputs', G3N.altup) - 1) * h * h,
  positions: G3N.positions,
};

export const gemma3nText = (c: Fields): ArchBody => pleText(c, GEMMA3N);

/** A Gemma 4 / Gemma 3n wrapper: its text_config read as the text model; the vision and audio towers are not counted. */
export const gemma4 = (c: Fields): ArchBody => wrapper(c, gemma4Text);
export const gemma3n = (c: Fields): ArchBody => wrapper(c, gemma3nText);

function wrapper(c: Fields, text: (t: Fields) => ArchBody): ArchBody {
  const body = text(c.sub('text_config'));
  const towers = ['vision_config', 'audio_config'].filter((k) => isObject(c.raw[k]));
  return towers.length === 0
    ? body
    : {
        ...body,
        assumptions: [`${towers.join(', ')}: not read (the towers' parameters are not counted)`],
      };
}
