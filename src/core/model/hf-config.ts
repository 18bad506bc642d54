/**
 * Hugging Face config.json → normalized `Arch`. Pure: data in, data out.
 * One handler per model_type; defaults cite the transformers configuration class they come from.
 */
import type {
  Arch,
  CheckpointQuant,
  LayerGroup,
  Linear,
  LinearRole,
  RecurrentState,
  SourceDtype,
} from './arch.js';
import { paramCounts } from './params.js';

// Bounds that keep hostile configs from hanging or overflowing the estimate: int32 sizes (torch shapes),
// 100x the deepest published model (the per-layer loop runs this many times), and 100T parameters
// (50x the largest published; keeps every byte count below Number.MAX_SAFE_INTEGER).
const MAX_CONFIG_INT = 2 ** 31 - 1;
const MAX_LAYERS = 20_000;
const MAX_PARAMS = 1e14;

/** A config.json field that is missing, of the wrong type, or outside its allowed values. */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`config.json ${field}: got ${showValue(value)}; expected ${allowed}`);
    this.name = 'ConfigError';
  }
}

function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value);
}

type Json = Record<string, unknown>;
type Keys = string | readonly string[];

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Typed access to one config object; errors name the field path (e.g. `text_config.hidden_size`). */
class Fields {
  constructor(
    readonly raw: Json,
    readonly path = '',
  ) {}

  /** First of `keys` that is present and not null. */
  private pick(keys: Keys): [string, unknown] | undefined {
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const v = this.raw[key];
      if (v !== undefined && v !== null) return [key, v];
    }
    return undefined;
  }

  private name(keys: Keys): string {
    return this.path + (typeof keys === 'string' ? keys : (keys[0] ?? ''));
  }

  has(keys: Keys): boolean {
    return this.pick(keys) !== undefined;
  }

  /** A positive integer up to `max`; `fallback` when absent (the config class default). */
  int(keys: Keys, fallback?: number, max = MAX_CONFIG_INT): number {
    const hit = this.pick(keys);
    if (hit === undefined) {
      if (fallback !== undefined) return fallback;
      throw new ConfigError(this.name(keys), undefined, 'a positive integer');
    }
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new ConfigError(this.path + key, v, 'a positive integer');
    }
    if (v > max) throw new ConfigError(this.path + key, v, `a positive integer up to ${max}`);
    return v;
  }

  /** A non-negative integer (counts that may be zero). */
  count(keys: Keys, fallback: number): number {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_CONFIG_INT) {
      throw new ConfigError(this.path + key, v, `a non-negative integer up to ${MAX_CONFIG_INT}`);
    }
    return v;
  }

  optInt(keys: Keys): number | null {
    return this.has(keys) ? this.int(keys) : null;
  }

  num(keys: Keys, fallback: number): number {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new ConfigError(this.path + key, v, 'a non-negative number');
    }
    return v;
  }

  bool(keys: Keys, fallback: boolean): boolean {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'boolean') throw new ConfigError(this.path + key, v, 'true or false');
    return v;
  }

  str(keys: Keys, fallback?: string): string {
    const hit = this.pick(keys);
    if (hit === undefined) {
      if (fallback !== undefined) return fallback;
      throw new ConfigError(this.name(keys), undefined, 'a string');
    }
    const [key, v] = hit;
    if (typeof v !== 'string') throw new ConfigError(this.path + key, v, 'a string');
    return v;
  }

  intList(key: string): number[] {
    const v = this.raw[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x) && x >= 0)) {
      throw new ConfigError(this.path + key, v, 'a list of layer indices');
    }
    return v as number[];
  }

  strList(key: string): string[] | null {
    const v = this.raw[key];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw new ConfigError(this.path + key, v, 'a list of strings');
    }
    return v as string[];
  }

  sub(key: string): Fields {
    const v = this.raw[key];
    if (!isObject(v)) throw new ConfigError(this.path + key, v, 'an object');
    return new Fields(v, `${this.path}${key}.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Building blocks

function lin(
  role: LinearRole,
  inFeatures: number,
  outFeatures: number,
  bias: boolean,
  copies = 1,
  activeCopies = copies,
): Linear {
  return { role, inFeatures, outFeatures, bias, copies, activeCopies };
}

interface AttnDims {
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
}

/** q, k, v, o projections; fused checkpoint modules (qkv_proj, c_attn, query_key_value) are split by role. */
function attention(
  d: AttnDims,
  qkvBias: boolean,
  oBias: boolean,
  kvIn = d.hidden,
  cross = false,
): Linear[] {
  const q = d.heads * d.headDim;
  const kv = d.kvHeads * d.headDim;
  return [
    lin(cross ? 'cross_q' : 'q', d.hidden, q, qkvBias),
    lin(cross ? 'cross_k' : 'k', kvIn, kv, qkvBias),
    lin(cross ? 'cross_v' : 'v', kvIn, kv, qkvBias),
    lin(cross ? 'cross_o' : 'o', q, d.hidden, oBias),
  ];
}

/** Gated MLP (gate, up, down) or plain 2-matrix MLP (up = fc_in/fc1/c_fc/dense_h_to_4h, down). */
function mlp(
  hidden: number,
  ffn: number,
  gated: boolean,
  bias: boolean,
  copies = 1,
  active = copies,
): Linear[] {
  const inner = [
    lin('up', hidden, ffn, bias, copies, active),
    lin('down', ffn, hidden, bias, copies, active),
  ];
  return gated ? [lin('gate', hidden, ffn, bias, copies, active), ...inner] : inner;
}

/** Everything of a LayerGroup but its linears, with the common defaults of a causal decoder layer. */
type GroupBase = Omit<LayerGroup, 'linears' | 'otherParamsPerLayer' | 'count'>;

function group(
  base: GroupBase,
  linears: Linear[],
  otherParamsPerLayer: number,
  count = 1,
): LayerGroup {
  return { ...base, count, linears, otherParamsPerLayer };
}

/** Merge identical per-layer groups into runs with counts, keeping first-appearance order. */
function mergeLayers(layers: LayerGroup[]): LayerGroup[] {
  const merged = new Map<string, LayerGroup>();
  for (const layer of layers) {
    const key = JSON.stringify({ ...layer, count: 0 });
    const seen = merged.get(key);
    if (seen) seen.count += layer.count;
    else merged.set(key, { ...layer });
  }
  return [...merged.values()];
}

/** Norm weight count: RMSNorm has a weight, LayerNorm a weight and a bias. */
const normSize = (hidden: number, withBias: boolean): number => (withBias ? 2 * hidden : hidden);

function headDimOf(c: Fields, hidden: number, heads: number, fallback?: number): number {
  if (c.has('head_dim')) return c.int('head_dim');
  if (fallback !== undefined) return fallback;
  if (hidden % heads !== 0)
    throw new ConfigError(
      `${c.path}num_attention_heads`,
      heads,
      `a divisor of hidden_size ${hidden}`,
    );
  return hidden / heads;
}

/** Dropout is active in training when any probability in the config (or its class default) is > 0. */
function hasDropout(c: Fields, defaults: Record<string, number>): boolean {
  const keys = new Set([...DROPOUT_KEYS, ...Object.keys(defaults)]);
  return [...keys].some((k) => c.num(k, defaults[k] ?? 0) > 0);
}
const DROPOUT_KEYS = [
  'hidden_dropout_prob',
  'attention_probs_dropout_prob',
  'dropout_rate',
  'attention_dropout',
  'resid_pdrop',
  'attn_pdrop',
  'hidden_dropout',
  'dropout',
] as const;

/** lm_head weight (plus bias) unless tied to the input embedding. */
const lmHead = (tied: boolean, vocab: number, hidden: number, bias = false): number =>
  tied ? 0 : vocab * hidden + (bias ? vocab : 0);

/** What a handler returns; the common wrapper adds ids, dtype and quantization. */
type ArchBody = Omit<
  Arch,
  'id' | 'hfId' | 'modelType' | 'architecture' | 'dtype' | 'quant' | 'measuredParams'
>;

// ---------------------------------------------------------------------------------------------
// Llama-like decoders (Llama, Mistral, Mixtral, Qwen2/3 (+MoE), Gemma 1/2/3, Phi-3, StableLM, gpt-oss)

interface Moe {
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
}

interface LlamaFlavor {
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
}

const attentionBias = (fallback: boolean) => (c: Fields) => c.bool('attention_bias', fallback);
const mlpBiasFlag = (c: Fields) => c.bool('mlp_bias', false);
const qkNorm = (_c: Fields, d: AttnDims) => 2 * d.headDim;
const everyLayerIfSet = () => true;
// HF Qwen2Config.layer_types: sliding only with use_sliding_window and for layers >= max_window_layers.
const qwenSliding = (c: Fields, i: number) =>
  c.bool('use_sliding_window', false) && i >= c.count('max_window_layers', 0);
// HF Gemma2Config.layer_types: "sliding_attention" if (i + 1) % 2 else "full_attention".
const GEMMA2_PATTERN = 2;
// HF Gemma3TextConfig default sliding_window_pattern=6 (5 local : 1 global).
const GEMMA3_PATTERN = 6;
const patternSliding = (pattern: number) => (c: Fields, i: number) =>
  (i + 1) % c.int(['sliding_window_pattern', '_sliding_window_pattern'], pattern) !== 0;

function slidingWindowOf(c: Fields, f: LlamaFlavor, layer: number): number | null {
  const window = c.optInt('sliding_window');
  if (window === null) return null;
  const types = c.strList('layer_types');
  if (types) return types[layer] === 'sliding_attention' ? window : null;
  return (f.slidingLayer ?? (() => false))(c, layer) ? window : null;
}

function llamaLike(f: LlamaFlavor): (c: Fields) => ArchBody {
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
    const normParams = normSize(hidden, norm === 'layer');
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
      dropout: hasDropout(c, f.dropout ?? {}),
      mixers: f.mixer ? f.mixer(c, layers) : null,
    };
    const perLayer = Array.from({ length: layers }, (_, i) => llamaLayer(c, f, shared, i));
    const groups = mergeLayers(perLayer);
    return {
      kind: 'causal-lm',
      // Attention groups first: TP and time read the first group's heads (structure.ts headsOf).
      groups: shared.mixers
        ? [...groups.filter((g) => !g.recurrent), ...groups.filter((g) => g.recurrent)]
        : groups,
      hidden,
      vocab,
      tiedEmbeddings: tied,
      embedParams: vocab * hidden,
      lmHeadParams: lmHead(tied, vocab, hidden),
      otherParams: normParams,
      maxPositions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
    };
  };
}

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
}

/** A linear-attention / SSM mixer: its linears, extra parameters and per-sequence state. */
interface Mixer {
  linears: Linear[];
  params: number;
  state: RecurrentState;
}

function llamaLayer(c: Fields, f: LlamaFlavor, s: LayerShared, i: number): LayerGroup {
  const { d } = s;
  const moe = checkTopK(c, f.moe?.(c, i) ?? null);
  const mixer = s.mixers?.[i] ?? null;
  const base: GroupBase = {
    name: 'decoder',
    hidden: d.hidden,
    heads: mixer ? mixer.state.heads : d.heads,
    kvHeads: mixer ? mixer.state.heads : d.kvHeads,
    headDim: mixer ? mixer.state.keyDim : d.headDim,
    vHeadDim: mixer ? mixer.state.valueDim : d.headDim,
    ffn: moe ? moe.ffn : s.ffn,
    gated: true,
    experts: moe ? moe.experts : 1,
    topK: moe ? moe.topK : 1,
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
    ...(moe ? moeMlp(d.hidden, moe) : mlp(d.hidden, s.ffn, true, s.mlpBias)),
  ];
  const extra = mixer ? mixer.params : (f.extraPerLayer?.(c, d) ?? 0);
  const layer = group(
    base,
    linears,
    s.normsPerLayer * s.normParams + extra + (moe?.extraParams ?? 0),
  );
  return mixer ? { ...layer, recurrent: mixer.state } : layer;
}

/** A token is routed to topK distinct experts, so topK cannot exceed the expert count. */
function checkTopK(c: Fields, moe: Moe | null): Moe | null {
  if (moe && moe.topK > moe.experts)
    throw new ConfigError(
      `${c.path}num_experts_per_tok`,
      moe.topK,
      `at most the number of experts (${moe.experts})`,
    );
  return moe;
}

/** Router + routed experts (copies = experts, active = topK) + optional shared expert. */
function moeMlp(hidden: number, m: Moe): Linear[] {
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
const DEFAULT_MAX_POSITIONS = 2048;

const mixtralMoe = (c: Fields): Moe => ({
  experts: c.int('num_local_experts'),
  topK: c.int(['num_experts_per_tok', 'experts_per_token']),
  ffn: c.int('intermediate_size'),
  routerBias: false,
  expertBias: false,
  sharedFfn: 0,
  sharedGate: false,
});

/** Qwen2-MoE / Qwen3-MoE: MoE on layers where (i+1) % decoder_sparse_step == 0 and not in mlp_only_layers. */
function qwenMoe(shared: boolean) {
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

const gptOssMoe = (c: Fields): Moe => ({
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
const stablelmExtra = (c: Fields, d: AttnDims) =>
  c.bool('qk_layernorm', false) ? (d.heads + d.kvHeads) * d.headDim : 0;

// ---------------------------------------------------------------------------------------------
// DeepSeek-V2/V3: multi-head latent attention (MLA) + MoE with shared experts

// Long on purpose: one flat table of the DeepSeek V2/V3 config fields (MLA widths, MoE layout), read top to bottom.
function deepseek(v3: boolean) {
  return (c: Fields): ArchBody => {
    const hidden = c.int('hidden_size');
    const heads = c.int('num_attention_heads');
    const layers = c.int('num_hidden_layers', undefined, MAX_LAYERS);
    const vocab = c.int('vocab_size');
    const qLora = c.optInt('q_lora_rank');
    const kvLora = c.int('kv_lora_rank');
    const nope = c.int('qk_nope_head_dim');
    const rope = c.int('qk_rope_head_dim');
    const vDim = c.int('v_head_dim');
    const bias = c.bool('attention_bias', false);
    const qk = nope + rope;
    const attn: Linear[] = [
      ...(qLora === null
        ? [lin('q', hidden, heads * qk, bias)]
        : [lin('q_a', hidden, qLora, bias), lin('q_b', qLora, heads * qk, false)]),
      lin('kv_a', hidden, kvLora + rope, bias),
      lin('kv_b', kvLora, heads * (nope + vDim), false),
      lin('o', heads * vDim, hidden, bias),
    ];
    // q_a_layernorm and kv_a_layernorm (RMSNorm) plus input/post-attention norms.
    const attnNorms = (qLora ?? 0) + kvLora + 2 * hidden;
    const experts = c.count('n_routed_experts', 0);
    const denseUntil = c.count('first_k_dense_replace', 0);
    const every = c.int('moe_layer_freq', 1);
    const dropout = hasDropout(c, {});
    const perLayer = Array.from({ length: layers }, (_, i) => {
      const isMoe = experts > 0 && i >= denseUntil && i % every === 0;
      const moe: Moe | null = checkTopK(
        c,
        isMoe
          ? {
              experts,
              topK: c.int('num_experts_per_tok'),
              ffn: c.int('moe_intermediate_size'),
              routerBias: false,
              expertBias: false,
              // HF DeepseekV2MoE: shared experts form one MLP of moe_intermediate_size * n_shared_experts.
              sharedFfn: c.int('moe_intermediate_size') * c.count('n_shared_experts', 0),
              sharedGate: false,
            }
          : null,
      );
      const ffn = moe ? moe.ffn : c.int('intermediate_size');
      const base: GroupBase = {
        name: 'decoder',
        hidden,
        heads,
        kvHeads: heads,
        headDim: qk,
        vHeadDim: vDim,
        ffn,
        gated: true,
        experts: moe ? experts : 1,
        topK: moe ? moe.topK : 1,
        norm: 'rms',
        normsPerLayer: 2,
        parallelResidual: false,
        dropout,
        causal: true,
        crossAttention: false,
        slidingWindow: null,
        mlaCacheWidth: kvLora + rope,
      };
      // DeepSeek-V3 router keeps an e_score_correction_bias of n_routed_experts (noaux_tc routing).
      const routerExtra = moe && v3 ? experts : 0;
      return group(
        base,
        [...attn, ...(moe ? moeMlp(hidden, moe) : mlp(hidden, ffn, true, false))],
        attnNorms + routerExtra,
      );
    });
    const tied = c.bool('tie_word_embeddings', false);
    return {
      kind: 'causal-lm',
      groups: mergeLayers(perLayer),
      hidden,
      vocab,
      tiedEmbeddings: tied,
      embedParams: vocab * hidden,
      lmHeadParams: lmHead(tied, vocab, hidden),
      otherParams: hidden,
      maxPositions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
    };
  };
}

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

function classicGroup(k: Classic): LayerGroup {
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
function gpt2(bigcode: boolean) {
  return (c: Fields): ArchBody => {
    const hidden = c.int(['n_embd', 'hidden_size']);
    const heads = c.int(['n_head', 'num_attention_heads']);
    const positions = c.int(['n_positions', 'max_position_embeddings'], 1024);
    const mqa = bigcode && c.bool('multi_query', true);
    return classicArch({
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
    });
  };
}

function gptj(c: Fields): ArchBody {
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

function gptNeox(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  // HF GPTNeoXConfig defaults: attention_bias=True, use_parallel_residual=True, tie_word_embeddings=False.
  const parallel = c.bool('use_parallel_residual', true);
  const bias = c.bool('attention_bias', true);
  return classicArch({
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
  });
}

function phi(c: Fields): ArchBody {
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

function falcon(legacy40b: boolean) {
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
    return classicArch({
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
    });
  };
}

// BLOOM uses ALiBi (no max_position_embeddings); 2048 is its training sequence length (BLOOM paper, sec. 3.5).
const BLOOM_TRAIN_SEQ = 2048;

function bloom(c: Fields): ArchBody {
  const hidden = c.int(['hidden_size', 'n_embed']);
  const heads = c.int(['n_head', 'num_attention_heads']);
  return classicArch({
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
  });
}

// HF OPTLearnedPositionalEmbedding: num_embeddings + 2 (fairseq padding offset).
const OPT_POSITION_OFFSET = 2;

function opt(c: Fields): ArchBody {
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

// ---------------------------------------------------------------------------------------------
// Encoders and encoder-decoders

function bert(c: Fields, architecture: string): ArchBody {
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

function t5(tiedDefault: boolean) {
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
      vocab,
      tiedEmbeddings: tied,
      embedParams: vocab * hidden,
      lmHeadParams: lmHead(tied, vocab, hidden),
      otherParams: relBias + 2 * hidden,
      maxPositions: c.int('n_positions', T5_TRAIN_SEQ),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Mllama (Llama 3.2 Vision): text decoder + cross-attention layers + vision tower

// HF MllamaTextModel: embed_tokens has vocab_size + 8 rows (image and reserved special tokens).
const MLLAMA_EXTRA_TOKENS = 8;
// HF MllamaVisionModel patch_embedding: Conv2d(num_channels, hidden, patch, stride=patch, bias=False).
const RGB_CHANNELS = 3;

function mllama(c: Fields): ArchBody {
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
    maxPositions: t.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
  };
}

function vision(v: Fields): { groups: LayerGroup[]; otherParams: number; outputDim: number } {
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
  return {
    groups: [{ ...g, name: 'vision', causal: false }],
    otherParams: embeddings,
    outputDim: v.int('vision_output_dim'),
  };
}

// ---------------------------------------------------------------------------------------------
// Dispatch table

interface Handler {
  architecture: string;
  kind?: Arch['kind'];
  build: (c: Fields, architecture: string) => ArchBody;
}

const GEMMA_HEAD_DIM = 256; // HF GemmaConfig default head_dim=256

const HANDLERS: Record<string, Handler> = {
  // HF LlamaConfig default tie_word_embeddings=False, attention_bias=False, mlp_bias=False.
  llama: { architecture: 'LlamaForCausalLM', build: llamaLike({ tiedDefault: false }) },
  mistral: {
    architecture: 'MistralForCausalLM',
    build: llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet }),
  },
  mixtral: {
    architecture: 'MixtralForCausalLM',
    build: llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet, moe: mixtralMoe }),
  },
  // HF Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False.
  qwen2: {
    architecture: 'Qwen2ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: () => true,
      oBias: () => false,
      slidingLayer: qwenSliding,
    }),
  },
  qwen2_moe: {
    architecture: 'Qwen2MoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: (c) => c.bool('qkv_bias', true),
      oBias: () => false,
      slidingLayer: qwenSliding,
      moe: qwenMoe(true),
    }),
  },
  qwen3: {
    architecture: 'Qwen3ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm, slidingLayer: qwenSliding }),
  },
  qwen3_moe: {
    architecture: 'Qwen3MoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNorm,
      slidingLayer: qwenSliding,
      moe: qwenMoe(false),
    }),
  },
  // HF GemmaConfig/Gemma2Config/Gemma3TextConfig default tie_word_embeddings=True.
  gemma: {
    architecture: 'GemmaForCausalLM',
    build: llamaLike({ tiedDefault: true, headDimDefault: GEMMA_HEAD_DIM }),
  },
  // Gemma-2: pre/post attention and pre/post feed-forward norms (4 per layer).
  gemma2: {
    architecture: 'Gemma2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      normsPerLayer: 4,
      headDimDefault: GEMMA_HEAD_DIM,
      slidingLayer: patternSliding(GEMMA2_PATTERN),
    }),
  },
  gemma3_text: {
    architecture: 'Gemma3ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      normsPerLayer: 4,
      headDimDefault: GEMMA_HEAD_DIM,
      extraPerLayer: qkNorm,
      slidingLayer: patternSliding(GEMMA3_PATTERN),
    }),
  },
  // Phi-3 stores qkv_proj and gate_up_proj fused; split by role here. HF Phi3Config default tie=False.
  phi3: {
    architecture: 'Phi3ForCausalLM',
    build: llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet }),
  },
  // HF StableLmConfig: LayerNorm with bias, use_qkv_bias=False, use_parallel_residual=False, tie=False.
  stablelm: {
    architecture: 'StableLmForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      norm: 'layer',
      qkvBias: (c) => c.bool('use_qkv_bias', false),
      oBias: () => false,
      extraPerLayer: stablelmExtra,
      parallel: (c) => c.bool('use_parallel_residual', false),
    }),
  },
  // HF GptOssConfig default attention_bias=True; each layer has per-head attention sinks.
  gpt_oss: {
    architecture: 'GptOssForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: attentionBias(true),
      moe: gptOssMoe,
      extraPerLayer: (_c, d) => d.heads,
      slidingLayer: patternSliding(GEMMA2_PATTERN),
    }),
  },
  deepseek_v2: { architecture: 'DeepseekV2ForCausalLM', build: deepseek(false) },
  deepseek_v3: { architecture: 'DeepseekV3ForCausalLM', build: deepseek(true) },
  phi: { architecture: 'PhiForCausalLM', build: phi },
  gptj: { architecture: 'GPTJForCausalLM', build: gptj },
  gpt_neox: { architecture: 'GPTNeoXForCausalLM', build: gptNeox },
  falcon: { architecture: 'FalconForCausalLM', build: falcon(false) },
  RefinedWebModel: { architecture: 'RWForCausalLM', build: falcon(false) },
  RefinedWeb: { architecture: 'RWForCausalLM', build: falcon(true) },
  bloom: { architecture: 'BloomForCausalLM', build: bloom },
  opt: { architecture: 'OPTForCausalLM', build: opt },
  gpt2: { architecture: 'GPT2LMHeadModel', build: gpt2(false) },
  gpt_bigcode: { architecture: 'GPTBigCodeForCausalLM', build: gpt2(true) },
  bert: { architecture: 'BertForMaskedLM', build: bert },
  // HF T5Config default tie_word_embeddings=True; MT5Config default False.
  t5: { architecture: 'T5ForConditionalGeneration', build: t5(true) },
  mt5: { architecture: 'MT5ForConditionalGeneration', build: t5(false) },
  mllama: { architecture: 'MllamaForConditionalGeneration', build: mllama },
};

/** model_type values `archFromHfConfig` understands. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = Object.keys(HANDLERS);

// ---------------------------------------------------------------------------------------------
// dtype and checkpoint quantization

const DTYPES: Record<string, SourceDtype> = {
  float32: 'float32',
  fp32: 'float32',
  float: 'float32',
  float16: 'float16',
  fp16: 'float16',
  half: 'float16',
  bfloat16: 'bfloat16',
  bf16: 'bfloat16',
};

function dtypeOf(c: Fields, nested: Fields | null): SourceDtype {
  const raw = c.has(['torch_dtype', 'dtype']) ? c : nested;
  // HF PretrainedConfig without torch_dtype: from_pretrained loads float32.
  if (!raw || !raw.has(['torch_dtype', 'dtype'])) return 'float32';
  const name = raw.str(['torch_dtype', 'dtype']);
  const dtype = DTYPES[name.replace(/^torch\./, '')];
  // FP8 checkpoints keep their non-quantized tensors in bf16.
  if (dtype === undefined && name.includes('float8')) return 'bfloat16';
  if (dtype === undefined)
    throw new ConfigError(`${raw.path}torch_dtype`, name, Object.keys(DTYPES).join(', '));
  return dtype;
}

// bitsandbytes quantize_4bit default blocksize=64; MX formats share one scale per 32 elements (OCP MX spec v1.0).
const BNB_4BIT_BLOCK = 64;
const MX_BLOCK = 32;
const EIGHT_BITS = 8;
const FOUR_BITS = 4;

function quantOf(c: Fields): CheckpointQuant | null {
  if (!isObject(c.raw.quantization_config)) return null;
  const q = c.sub('quantization_config');
  const method = q.str(
    'quant_method',
    q.bool('load_in_4bit', false) || q.bool('load_in_8bit', false) ? 'bitsandbytes' : 'other',
  );
  const skipped =
    q.strList('modules_to_not_convert') ??
    q.strList('llm_int8_skip_modules') ??
    q.strList('ignore') ??
    [];
  // GPTQ/AWQ group_size -1 means one scale per output channel (no groups).
  const groupOf = (keys: string[]): number | null => {
    const size = keys.map((k) => q.raw[k]).find((v) => typeof v === 'number');
    return typeof size === 'number' && size > 0 ? size : null;
  };
  switch (method) {
    case 'bitsandbytes':
      return q.bool('load_in_4bit', false)
        ? { method: 'bitsandbytes-4bit', bits: FOUR_BITS, groupSize: BNB_4BIT_BLOCK, skipped }
        : { method: 'bitsandbytes-8bit', bits: EIGHT_BITS, groupSize: null, skipped };
    case 'gptq':
      return { method: 'gptq', bits: q.int('bits'), groupSize: groupOf(['group_size']), skipped };
    case 'awq':
      return {
        method: 'awq',
        bits: q.int(['bits', 'w_bit']),
        groupSize: groupOf(['group_size', 'q_group_size']),
        skipped,
      };
    case 'fp8': {
      const block = Array.isArray(q.raw.weight_block_size)
        ? (q.raw.weight_block_size as number[])
        : null;
      return {
        method: 'fp8',
        bits: EIGHT_BITS,
        groupSize: block ? block.reduce((a, b) => a * b, 1) : null,
        skipped,
      };
    }
    case 'mxfp4':
      return { method: 'mxfp4', bits: FOUR_BITS, groupSize: MX_BLOCK, skipped };
    case 'compressed-tensors':
      return compressedTensors(q, skipped);
    default:
      return {
        method: 'other',
        // Unknown methods without a bit width: assume 8-bit (the most common weight-only format).
        bits: q.int(['bits', 'w_bit', 'nbits'], EIGHT_BITS),
        groupSize: groupOf(['group_size']),
        skipped,
      };
  }
}

/** llm-compressor format: config_groups.<g>.weights {num_bits, type: float|int, strategy, group_size}. */
function compressedTensors(q: Fields, skipped: string[]): CheckpointQuant {
  const groups = isObject(q.raw.config_groups) ? Object.values(q.raw.config_groups) : [];
  const first = groups.find(isObject);
  const w =
    first && isObject(first.weights)
      ? new Fields(first.weights, `${q.path}config_groups.weights.`)
      : null;
  if (!w) return { method: 'other', bits: EIGHT_BITS, groupSize: null, skipped };
  const bits = w.int('num_bits');
  const float = w.str('type', 'int') === 'float';
  const groupSize = w.has('group_size') ? w.int('group_size') : null;
  // int4 weight-only (llm-compressor W4A16) is GPTQ-style: packed int4 with group scales.
  return {
    method: float && bits === EIGHT_BITS ? 'fp8' : bits === FOUR_BITS ? 'gptq' : 'other',
    bits,
    groupSize,
    skipped,
  };
}

/**
 * The context a config declares through rope_scaling (transformers modeling_rope_utils: linear, dynamic,
 * yarn, longrope, llama3 scale the positions by `factor` from original_max_position_embeddings, or from
 * max_position_embeddings when no original is given); never less than max_position_embeddings.
 */
function ropeScaledPositions(config: Json, maxPositions: number): number {
  const r = config.rope_scaling;
  if (!isObject(r)) return maxPositions;
  const kind = r.rope_type ?? r.type;
  const factor = r.factor;
  if (typeof factor !== 'number' || !(factor > 1)) return maxPositions;
  if (!['linear', 'dynamic', 'yarn', 'longrope', 'llama3'].includes(String(kind)))
    return maxPositions;
  const original =
    typeof r.original_max_position_embeddings === 'number'
      ? r.original_max_position_embeddings
      : maxPositions;
  return Math.max(maxPositions, Math.floor(original * factor));
}

// ---------------------------------------------------------------------------------------------

/** Normalize one Hugging Face config.json object. Throws ConfigError on anything it cannot read. */
export function archFromHfConfig(config: unknown, meta: { id: string; hfId: string | null }): Arch {
  if (!isObject(config)) throw new ConfigError('(root)', config, 'a JSON object');
  const c = new Fields(config);
  const modelType = config.model_type;
  const handler =
    typeof modelType === 'string' && Object.hasOwn(HANDLERS, modelType)
      ? HANDLERS[modelType]
      : undefined;
  if (!handler)
    throw new ConfigError('model_type', modelType, `one of ${SUPPORTED_MODEL_TYPES.join(', ')}`);
  const names = c.strList('architectures');
  const architecture = names?.[0] ?? handler.architecture;
  const body = handler.build(c, architecture);
  const nested = isObject(config.text_config) ? c.sub('text_config') : null;
  const arch: Arch = {
    id: meta.id,
    hfId: meta.hfId,
    modelType: modelType as string,
    architecture,
    ...body,
    dtype: dtypeOf(c, nested),
    quant: quantOf(c),
    measuredParams: null,
  };
  const scaled = ropeScaledPositions(nested?.raw ?? config, body.maxPositions);
  if (scaled > body.maxPositions) arch.ropeScaledPositions = scaled;
  const total = paramCounts(arch).total;
  if (!(total <= MAX_PARAMS))
    throw new ConfigError(
      '(sizes)',
      total,
      `at most ${MAX_PARAMS} parameters in all (check the sizes in config.json)`,
    );
  return arch;
}
