/** Llama-like decoders: Llama, Mistral, Mixtral, Qwen2/3 (+MoE), Gemma 1/2/3, Phi-3, StableLM, gpt-oss. */
import type { LayerGroup, Linear, RecurrentState } from '../arch.js';
import {
  attention,
  group,
  hasDropout,
  headDimOf,
  lin,
  lmHead,
  mergeLayers,
  mlp,
  normSize,
} from './blocks.js';
import type { ArchBody, AttnDims, GroupBase } from './blocks.js';
import { ConfigError, Fields, MAX_LAYERS } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Llama-like decoders (Llama, Mistral, Mixtral, Qwen2/3 (+MoE), Gemma 1/2/3, Phi-3, StableLM, gpt-oss)

export interface Moe {
  experts: number;
  topK: number;
  ffn: number;
  routerBias: boolean;
  expertBias: boolean;
  /** Width of the always-active shared expert MLP (0 = none). */
  sharedFfn: number;
  /** Qwen2-MoE's sigmoid gate on the shared expert (Linear hidden→1). */
  sharedGate: boolean;
  /** Parameters of the MoE block outside its linears (router bias buffers and the like). */
  extraParams?: number;
  /** The config key top-k comes from, for errors (default num_experts_per_tok). */
  topKKey?: string;
  /** A grouped router's expert groups (config n_group; LayerGroup.routerGroups). */
  routerGroups?: number;
}

export interface LlamaFlavor {
  tiedDefault: boolean;
  norm?: 'rms' | 'layer';
  normsPerLayer?: number;
  qkvBias?: (c: Fields) => boolean;
  oBias?: (c: Fields) => boolean;
  mlpBias?: (c: Fields) => boolean;
  /** Per-layer extra parameters (q/k norms, attention sinks). */
  extraPerLayer?: (c: Fields, d: AttnDims) => number;
  moe?: (c: Fields, layer: number) => Moe | null;
  /** Which layers use the sliding window when `layer_types` is absent. */
  slidingLayer?: (c: Fields, layer: number) => boolean;
  headDimDefault?: number;
  parallel?: (c: Fields) => boolean;
  dropout?: Record<string, number>;
  /** Width of the dense MLP (default intermediate_size; Llama 4: intermediate_size_mlp). */
  denseFfn?: (c: Fields) => number;
  /** q_proj also emits a per-head output gate (Qwen3-Next / Qwen3.5 gated attention). */
  gatedQuery?: boolean;
  /** Per-layer recurrent mixers (hybrid linear attention), or null where every layer is attention. */
  mixer?: (c: Fields, layers: number) => (Mixer | null)[] | null;
  /** KV window of one layer (default: sliding_window on the layers `slidingLayer` / `layer_types` name). */
  window?: (c: Fields, f: LlamaFlavor, layer: number) => number | null;
  /** LayerNorm with a bias (default for norm 'layer'); false for weight-only LayerNorms (Cohere). */
  normBias?: boolean;
  /** A 2-matrix MLP (c_fc, c_proj) in place of the gated one (StarCoder2). */
  ungated?: boolean;
  /** lm_head with a bias (PhiMoE lm_head_bias). */
  lmHeadBias?: (c: Fields) => boolean;
}

export const attentionBias = (fallback: boolean) => (c: Fields) =>
  c.bool('attention_bias', fallback);
const mlpBiasFlag = (c: Fields) => c.bool('mlp_bias', false);
/** One `use_bias` key for every linear (Starcoder2, ERNIE 4.5), with the family's default. */
export const useBias = (fallback: boolean) => (c: Fields) => c.bool('use_bias', fallback);
export const qkNorm = (_c: Fields, d: AttnDims) => 2 * d.headDim;
/** The per-head q/k norms (RMSNorm(head_dim) each) of a flavor: always (qkNorm) or behind a config flag (qkNormWhen). */
const PER_HEAD_QK_NORMS = new WeakSet<object>([qkNorm]);
/** Per-head q/k RMSNorms when the config's flag is set (GLM-4.5's use_qk_norm: Glm4MoeAttention q_norm/k_norm). */
export const qkNormWhen = (key: string, fallback: boolean) => {
  const extra = (c: Fields, d: AttnDims) => (c.bool(key, fallback) ? 2 * d.headDim : 0);
  PER_HEAD_QK_NORMS.add(extra);
  return extra;
};
export const everyLayerIfSet = () => true;
// HF Qwen2Config.layer_types: sliding only with use_sliding_window and for layers >= max_window_layers.
export const qwenSliding = (c: Fields, i: number) =>
  c.bool('use_sliding_window', false) && i >= c.count('max_window_layers', 0);
// HF Gemma2Config.layer_types: "sliding_attention" if (i + 1) % 2 else "full_attention".
export const GEMMA2_PATTERN = 2;
// HF Gemma3TextConfig default sliding_window_pattern=6 (5 local : 1 global).
export const GEMMA3_PATTERN = 6;
export const patternSliding = (pattern: number) => (c: Fields, i: number) =>
  (i + 1) % c.int(['sliding_window_pattern', '_sliding_window_pattern'], pattern) !== 0;

function slidingWindowOf(c: Fields, f: LlamaFlavor, layer: number): number | null {
  const window = c.optInt('sliding_window');
  if (window === null) return null;
  const types = c.strList('layer_types');
  if (types) return types[layer] === 'sliding_attention' ? window : null;
  return (f.slidingLayer ?? (() => false))(c, layer) ? window : null;
}

export function llamaLike(f: LlamaFlavor): (c: Fields) => ArchBody {
  return (c) => {
    const hidden = c.int('hidden_size');
    const heads = c.int('num_attention_heads');
    const d: AttnDims = {
      hidden,
      heads,
      kvHeads: c.int('num_key_value_heads', heads),
      headDim: headDimOf(c, hidden, heads, f.headDimDefault),
    };
    // Grouped-query attention repeats each KV head heads/kvHeads times (HF repeat_kv).
    if (heads % d.kvHeads !== 0)
      throw new ConfigError(
        `${c.path}num_key_value_heads`,
        d.kvHeads,
        `a divisor of num_attention_heads ${heads}`,
      );
    const layers = c.int('num_hidden_layers', undefined, MAX_LAYERS);
    const vocab = c.int('vocab_size');
    const norm = f.norm ?? 'rms';
    const normsPerLayer = f.parallel?.(c) ? 1 : (f.normsPerLayer ?? 2);
    const normParams = normSize(hidden, f.normBias ?? norm === 'layer');
    const tied = c.bool('tie_word_embeddings', f.tiedDefault);
    const shared: LayerShared = {
      d,
      ffn: (f.denseFfn ?? ((x: Fields) => x.int('intermediate_size')))(c),
      norm,
      normsPerLayer,
      normParams,
      qkvBias: (f.qkvBias ?? attentionBias(false))(c),
      oBias: (f.oBias ?? f.qkvBias ?? attentionBias(false))(c),
      mlpBias: (f.mlpBias ?? mlpBiasFlag)(c),
      gated: !f.ungated,
      dropout: hasDropout(c, f.dropout ?? {}),
      mixers: f.mixer ? f.mixer(c, layers) : null,
    };
    const perLayer = Array.from({ length: layers }, (_, i) => llamaLayer(c, f, shared, i));
    const groups = mergeLayers(perLayer);
    return {
      kind: 'causal-lm',
      groups: shared.mixers ? attentionFirst(groups) : groups,
      hidden,
      ...vocabFields(vocab, hidden, tied),
      lmHeadParams: lmHead(tied, vocab, hidden, f.lmHeadBias?.(c) ?? false),
      otherParams: normParams,
      maxPositions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
    };
  };
}

/** The embedding and output-layer fields of an architecture (tied: the head reuses the embedding). */
export const vocabFields = (vocab: number, hidden: number, tied: boolean) => ({
  vocab,
  tiedEmbeddings: tied,
  embedParams: vocab * hidden,
  lmHeadParams: lmHead(tied, vocab, hidden),
});

/** Attention groups first: TP and time read the first group's heads (structure.ts headsOf). */
export const attentionFirst = (groups: LayerGroup[]): LayerGroup[] => [
  ...groups.filter((g) => !g.recurrent),
  ...groups.filter((g) => g.recurrent),
];

/** What every layer of a llama-like decoder shares. */
interface LayerShared {
  d: AttnDims;
  ffn: number;
  norm: 'rms' | 'layer';
  normsPerLayer: number;
  normParams: number;
  qkvBias: boolean;
  oBias: boolean;
  mlpBias: boolean;
  dropout: boolean;
  /** Per layer: the recurrent mixer replacing attention (null = softmax attention); null for all-attention. */
  mixers: (Mixer | null)[] | null;
  /** Gated (SwiGLU) dense MLP, else 2-matrix. */
  gated: boolean;
}

/** A linear-attention / SSM mixer: its linears, extra parameters and per-sequence state. */
export interface Mixer {
  linears: Linear[];
  params: number;
  state: RecurrentState;
}

/** A layer's head shape: the softmax attention's, or its recurrent mixer's state heads (no growing KV). */
export const headShape = (mixer: Mixer | null, d: AttnDims) =>
  mixer
    ? {
        heads: mixer.state.heads,
        kvHeads: mixer.state.heads,
        headDim: mixer.state.keyDim,
        vHeadDim: mixer.state.valueDim,
      }
    : { heads: d.heads, kvHeads: d.kvHeads, headDim: d.headDim, vHeadDim: d.headDim };

function llamaLayer(c: Fields, f: LlamaFlavor, s: LayerShared, i: number): LayerGroup {
  const { d } = s;
  const moe = checkTopK(c, f.moe?.(c, i) ?? null);
  const mixer = s.mixers?.[i] ?? null;
  const base: GroupBase = {
    name: 'decoder',
    hidden: d.hidden,
    ...headShape(mixer, d),
    ffn: moe ? moe.ffn : s.ffn,
    gated: moe ? true : s.gated,
    experts: moe ? moe.experts : 1,
    topK: moe ? moe.topK : 1,
    ...(moe?.routerGroups === undefined ? {} : { routerGroups: moe.routerGroups }),
    norm: s.norm,
    normsPerLayer: s.normsPerLayer,
    parallelResidual: s.normsPerLayer === 1,
    dropout: s.dropout,
    causal: true,
    crossAttention: false,
    slidingWindow: mixer ? null : (f.window ?? slidingWindowOf)(c, f, i),
    mlaCacheWidth: null,
  };
  // Gated attention (Qwen3-Next, Qwen3.5): q_proj also produces the output gate, 2 x heads x head_dim.
  const attn = attention(d, s.qkvBias, s.oBias);
  if (f.gatedQuery && attn[0]) attn[0] = { ...attn[0], outFeatures: 2 * attn[0].outFeatures };
  const linears = [
    ...(mixer ? mixer.linears : attn),
    ...(moe ? moeMlp(d.hidden, moe) : mlp(d.hidden, s.ffn, s.gated, s.mlpBias)),
  ];
  const extra = mixer ? mixer.params : (f.extraPerLayer?.(c, d) ?? 0);
  const layer = group(
    base,
    linears,
    s.normsPerLayer * s.normParams + extra + (moe?.extraParams ?? 0),
  );
  if (mixer) return { ...layer, recurrent: mixer.state };
  const perHead = f.extraPerLayer !== undefined && PER_HEAD_QK_NORMS.has(f.extraPerLayer);
  return perHead && extra > 0 ? { ...layer, qkNorm: 'head' } : layer;
}

/** A token is routed to topK distinct experts, so topK cannot exceed the expert count. */
export function checkTopK(c: Fields, moe: Moe | null): Moe | null {
  if (moe && moe.topK > moe.experts)
    throw new ConfigError(
      `${c.path}${moe.topKKey ?? 'num_experts_per_tok'}`,
      moe.topK,
      `at most the number of experts (${moe.experts})`,
    );
  return moe;
}

/** Router + routed experts (copies = experts, active = topK) + optional shared expert. */
export function moeMlp(hidden: number, m: Moe): Linear[] {
  const shared = m.sharedFfn > 0 ? mlp(hidden, m.sharedFfn, true, false) : [];
  const sharedGate = m.sharedGate ? [lin('router', hidden, 1, false)] : [];
  return [
    lin('router', hidden, m.experts, m.routerBias),
    ...mlp(hidden, m.ffn, true, m.expertBias, m.experts, m.topK),
    ...shared,
    ...sharedGate,
  ];
}

// HF PretrainedConfig-era default max_position_embeddings (LlamaConfig, GPTNeoXConfig, ...) is 2048.
export const DEFAULT_MAX_POSITIONS = 2048;

export const mixtralMoe = (c: Fields): Moe => ({
  experts: c.int('num_local_experts'),
  topK: c.int(['num_experts_per_tok', 'experts_per_token']),
  ffn: c.int('intermediate_size'),
  routerBias: false,
  expertBias: false,
  sharedFfn: 0,
  sharedGate: false,
});

/** Qwen2-MoE / Qwen3-MoE: MoE on layers where (i+1) % decoder_sparse_step == 0 and not in mlp_only_layers. */
export function qwenMoe(shared: boolean) {
  return (c: Fields, i: number): Moe | null => {
    const experts = c.count('num_experts', 0);
    const step = c.int('decoder_sparse_step', 1);
    if (experts === 0 || c.intList('mlp_only_layers').includes(i) || (i + 1) % step !== 0)
      return null;
    const sharedFfn = shared ? c.count('shared_expert_intermediate_size', 0) : 0;
    return {
      experts,
      topK: c.int('num_experts_per_tok'),
      ffn: c.int('moe_intermediate_size'),
      routerBias: false,
      expertBias: false,
      sharedFfn,
      sharedGate: sharedFfn > 0,
    };
  };
}

export const gptOssMoe = (c: Fields): Moe => ({
  experts: c.int(['num_local_experts', 'num_experts']),
  topK: c.int(['num_experts_per_tok', 'experts_per_token']),
  ffn: c.int('intermediate_size'),
  // HF GptOssTopKRouter has a bias; GptOssExperts carry gate_up_proj_bias and down_proj_bias.
  routerBias: true,
  expertBias: true,
  sharedFfn: 0,
  sharedGate: false,
});

/** StableLM per-head q/k LayerNorm (StableLmLayerNormPerHead, no bias): heads*hd + kvHeads*hd. */
export const stablelmExtra = (c: Fields, d: AttnDims) =>
  c.bool('qk_layernorm', false) ? (d.heads + d.kvHeads) * d.headDim : 0;
