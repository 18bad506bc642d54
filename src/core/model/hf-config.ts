/**
 * Hugging Face config.json → normalized `Arch`. Pure: data in, data out.
 * One handler per model_type; defaults cite the transformers configuration class they come from.
 */
import type {
  VisionInput,
  VisionTower,
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
  /** The config key top-k comes from, for errors (default num_experts_per_tok). */
  topKKey?: string;
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
  /** LayerNorm with a bias (default for norm 'layer'); false for weight-only LayerNorms (Cohere). */
  normBias?: boolean;
  /** A 2-matrix MLP (c_fc, c_proj) in place of the gated one (StarCoder2). */
  ungated?: boolean;
  /** lm_head with a bias (PhiMoE lm_head_bias). */
  lmHeadBias?: (c: Fields) => boolean;
}

const attentionBias = (fallback: boolean) => (c: Fields) => c.bool('attention_bias', fallback);
const mlpBiasFlag = (c: Fields) => c.bool('mlp_bias', false);
/** One `use_bias` key for every linear (Starcoder2, ERNIE 4.5), with the family's default. */
const useBias = (fallback: boolean) => (c: Fields) => c.bool('use_bias', fallback);
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
const vocabFields = (vocab: number, hidden: number, tied: boolean) => ({
  vocab,
  tiedEmbeddings: tied,
  embedParams: vocab * hidden,
  lmHeadParams: lmHead(tied, vocab, hidden),
});

/** Attention groups first: TP and time read the first group's heads (structure.ts headsOf). */
const attentionFirst = (groups: LayerGroup[]): LayerGroup[] => [
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
interface Mixer {
  linears: Linear[];
  params: number;
  state: RecurrentState;
}

/** A layer's head shape: the softmax attention's, or its recurrent mixer's state heads (no growing KV). */
const headShape = (mixer: Mixer | null, d: AttnDims) =>
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
  return mixer ? { ...layer, recurrent: mixer.state } : layer;
}

/** A token is routed to topK distinct experts, so topK cannot exceed the expert count. */
function checkTopK(c: Fields, moe: Moe | null): Moe | null {
  if (moe && moe.topK > moe.experts)
    throw new ConfigError(
      `${c.path}${moe.topKKey ?? 'num_experts_per_tok'}`,
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
      ...vocabFields(vocab, hidden, tied),
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
      ...vocabFields(vocab, hidden, tied),
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
// Hybrid linear attention: Gated DeltaNet layers beside gated full attention (Qwen3-Next, Qwen3.5)

// HF Qwen3NextConfig (configuration_qwen3_next.py @249ef816) and Qwen3_5TextConfig (configuration_qwen3_5.py
// @8116e632): without layer_types, every full_attention_interval-th layer (default 4) is full attention.
const FULL_ATTENTION_INTERVAL = 4;
// Their defaults: linear_conv_kernel_dim=4, linear_key_head_dim=linear_value_head_dim=128,
// linear_num_key_heads=16, linear_num_value_heads=32.
const GDN_DEFAULTS = { kernel: 4, keyDim: 128, valueDim: 128, keyHeads: 16, valueHeads: 32 };
// flash-linear-attention chunk_gated_delta_rule runs chunks of 64 tokens (fla/ops/gated_delta_rule/chunk.py, BT=64).
const GDN_CHUNK = 64;

/** layer_types, checked to have one entry per layer (HF layer_type_validation). */
function layerTypesOf(c: Fields, layers: number): string[] | null {
  const types = c.strList('layer_types');
  if (types && types.length !== layers)
    throw new ConfigError(
      `${c.path}layer_types`,
      `${types.length} entries`,
      `one entry per layer (num_hidden_layers ${layers})`,
    );
  return types;
}

/** Bytes of a state dtype the config names (mamba_ssm_dtype), else null (the compute dtype). */
function stateDtypeBytes(c: Fields): number | null {
  if (!c.has('mamba_ssm_dtype')) return null;
  const name = c.str('mamba_ssm_dtype').replace(/^torch\./, '');
  const dtype = DTYPES[name];
  if (!dtype)
    throw new ConfigError(`${c.path}mamba_ssm_dtype`, name, Object.keys(DTYPES).join(', '));
  return dtype === 'float32' ? 4 : 2;
}

/**
 * Gated DeltaNet (HF Qwen3NextGatedDeltaNet / Qwen3_5GatedDeltaNet): in_proj_qkvz (q, k, v and the output
 * gate z; Qwen3.5 splits it into in_proj_qkv + in_proj_z, same size), in_proj_ba (beta and decay per value head),
 * a depthwise conv1d over q, k, v without bias, dt_bias and A_log per value head, a gated RMSNorm over
 * head_v_dim, out_proj. One mixer for every `linear_attention` entry of layer_types.
 */
function gatedDeltaNet(c: Fields, layers: number): (Mixer | null)[] {
  const hidden = c.int('hidden_size');
  const kHeads = c.int('linear_num_key_heads', GDN_DEFAULTS.keyHeads);
  const vHeads = c.int('linear_num_value_heads', GDN_DEFAULTS.valueHeads);
  const dk = c.int('linear_key_head_dim', GDN_DEFAULTS.keyDim);
  const dv = c.int('linear_value_head_dim', GDN_DEFAULTS.valueDim);
  const kernel = c.int('linear_conv_kernel_dim', GDN_DEFAULTS.kernel);
  if (vHeads % kHeads !== 0)
    throw new ConfigError(
      `${c.path}linear_num_value_heads`,
      vHeads,
      `a multiple of linear_num_key_heads ${kHeads}`,
    );
  const keyDim = kHeads * dk;
  const valueDim = vHeads * dv;
  const conv = 2 * keyDim + valueDim;
  const mixer: Mixer = {
    linears: [
      lin('other', hidden, conv + valueDim, false),
      lin('other', hidden, 2 * vHeads, false),
      lin('other', valueDim, hidden, false),
    ],
    params: conv * kernel + 2 * vHeads + dv,
    state: {
      kind: 'gated-deltanet',
      heads: vHeads,
      keyDim: dk,
      valueDim: dv,
      convChannels: conv,
      convKernel: kernel,
      stateBytes: stateDtypeBytes(c),
      chunk: GDN_CHUNK,
    },
  };
  const every = c.int('full_attention_interval', FULL_ATTENTION_INTERVAL);
  const types =
    layerTypesOf(c, layers) ??
    Array.from({ length: layers }, (_, i) =>
      (i + 1) % every === 0 ? 'full_attention' : 'linear_attention',
    );
  return types.map((t) => (t === 'linear_attention' ? mixer : null));
}

/** Qwen3-Next / Qwen3.5 decoders: gated attention with q/k norms, Gated DeltaNet, optional MoE. */
const qwenHybrid = (moe: boolean): LlamaFlavor => ({
  tiedDefault: false,
  extraPerLayer: qkNorm,
  gatedQuery: true,
  mixer: gatedDeltaNet,
  ...(moe ? { moe: qwenMoe(true) } : {}),
});

// ---------------------------------------------------------------------------------------------
// Mamba2 hybrids: Nemotron-H (nemotron_h) and Granite 4.0 hybrid (granitemoehybrid)

/** The sizes of one Mamba2 mixer, under whichever key names the family uses. */
interface Mamba2Dims {
  hidden: number;
  heads: number;
  headDim: number;
  groups: number;
  dState: number;
  kernel: number;
  convBias: boolean;
  projBias: boolean;
  stateBytes: number | null;
  /** vLLM's temporal-state bytes when the config names none and a vLLM hook picks its own (Nemotron-H). */
  vllmStateBytes?: number;
  chunk: number;
}

/**
 * One Mamba2 mixer (HF NemotronHMamba2Mixer / GraniteMoeHybridMambaLayer, both after Mamba2Mixer):
 * in_proj hidden -> z, x, B, C, dt (2 d_inner + 2 groups d_state + heads), a depthwise conv1d over x, B and C
 * (conv_dim = d_inner + 2 groups d_state, with bias when the conv bias flag is set), dt_bias, A_log and D per
 * head, a gated RMSNorm over d_inner, out_proj d_inner -> hidden. Its state per sequence is the conv state
 * (conv_dim x (kernel - 1)) and the SSM state heads x head_dim x d_state (vLLM mamba2_state_shape); the state
 * is read as d_state keys by head_dim values per head (B and C play the keys, x the values).
 */
function mamba2Mixer(m: Mamba2Dims): Mixer {
  const inner = m.heads * m.headDim;
  const conv = inner + 2 * m.groups * m.dState;
  return {
    linears: [
      lin('other', m.hidden, inner + conv + m.heads, m.projBias),
      lin('other', inner, m.hidden, m.projBias),
    ],
    params: conv * m.kernel + (m.convBias ? conv : 0) + 3 * m.heads + inner,
    state: {
      kind: 'mamba2',
      heads: m.heads,
      keyDim: m.dState,
      valueDim: m.headDim,
      groups: m.groups,
      convChannels: conv,
      convKernel: m.kernel,
      stateBytes: m.stateBytes,
      ...(m.vllmStateBytes ? { vllmStateBytes: m.vllmStateBytes } : {}),
      chunk: m.chunk,
    },
  };
}

/** Bytes of the SSM cache dtype a Mamba2 config names (mamba_ssm_cache_dtype), else null (the compute dtype). */
function ssmCacheBytes(c: Fields): number | null {
  const key = 'mamba_ssm_cache_dtype';
  if (!c.has(key)) return null;
  const name = c.str(key).replace(/^torch\./, '');
  const dtype = DTYPES[name];
  if (!dtype) throw new ConfigError(`${c.path}${key}`, name, Object.keys(DTYPES).join(', '));
  return dtype === 'float32' ? 4 : 2;
}

// HF GraniteMoeHybridConfig (configuration_granitemoehybrid.py @4f7e1d46) defaults: mamba_n_heads=128,
// mamba_n_groups=1, mamba_d_state=256, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=256,
// mamba_conv_bias=True, mamba_proj_bias=False; mamba_d_head "auto" = mamba_expand * hidden_size / mamba_n_heads.
const GRANITE_MAMBA = { heads: 128, groups: 1, dState: 256, kernel: 4, expand: 2, chunk: 256 };

/** Granite 4.0 hybrid: a Mamba2 mixer on every `mamba` entry of layer_types (all layers when absent). */
function graniteMamba(c: Fields, layers: number): (Mixer | null)[] {
  const hidden = c.int('hidden_size');
  const heads = c.int('mamba_n_heads', GRANITE_MAMBA.heads);
  const inner = c.int('mamba_expand', GRANITE_MAMBA.expand) * hidden;
  const headDim = typeof c.raw.mamba_d_head === 'number' ? c.int('mamba_d_head') : inner / heads;
  if (!Number.isInteger(headDim) || headDim * heads !== inner)
    throw new ConfigError(
      `${c.path}mamba_n_heads`,
      heads,
      `heads x mamba_d_head = mamba_expand x hidden_size (${inner})`,
    );
  const mixer = mamba2Mixer({
    hidden,
    heads,
    headDim,
    groups: c.int('mamba_n_groups', GRANITE_MAMBA.groups),
    dState: c.int('mamba_d_state', GRANITE_MAMBA.dState),
    kernel: c.int('mamba_d_conv', GRANITE_MAMBA.kernel),
    convBias: c.bool('mamba_conv_bias', true),
    projBias: c.bool('mamba_proj_bias', false),
    stateBytes: ssmCacheBytes(c),
    chunk: c.int('mamba_chunk_size', GRANITE_MAMBA.chunk),
  });
  const types = layerTypesOf(c, layers) ?? Array.from({ length: layers }, () => 'mamba');
  return types.map((t) => (t === 'mamba' ? mixer : null));
}

/**
 * Granite 4.0 hybrid MoE (HF GraniteMoeHybridMoE): a bias-free router, num_local_experts SwiGLU experts of
 * intermediate_size (input_linear fused gate/up, output_linear) and a shared SwiGLU MLP of
 * shared_intermediate_size on every layer; num_local_experts 0 leaves the shared MLP alone (dense).
 */
function graniteMoe(c: Fields): Moe | null {
  const experts = c.count('num_local_experts', GRANITE_MOE.experts);
  if (experts === 0) return null;
  return {
    experts,
    topK: c.int('num_experts_per_tok', GRANITE_MOE.topK),
    ffn: c.int('intermediate_size'),
    routerBias: false,
    expertBias: false,
    sharedFfn: c.count('shared_intermediate_size', GRANITE_MOE.shared),
    sharedGate: false,
  };
}
// HF GraniteMoeHybridConfig defaults: num_local_experts=8, num_experts_per_tok=2, shared_intermediate_size=1024.
const GRANITE_MOE = { experts: 8, topK: 2, shared: 1024 };

const granite: LlamaFlavor = {
  tiedDefault: false,
  mixer: graniteMamba,
  moe: graniteMoe,
  denseFfn: (c) => c.int('shared_intermediate_size', GRANITE_MOE.shared),
};

// HF NemotronHConfig (configuration_nemotron_h.py @cfeb552e) defaults: mamba_num_heads=128, mamba_head_dim=64,
// ssm_state_size=128, mamba_n_groups=8, mamba_d_conv=4, mamba_chunk_size=128, intermediate_size=21504,
// n_routed_experts=8, n_shared_experts=1, moe_intermediate_size=moe_shared_expert_intermediate_size=7688,
// num_experts_per_tok=2. Older exports spell n_groups, conv_kernel, chunk_size, use_conv_bias.
const NEMOTRON_H = { heads: 128, headDim: 64, dState: 128, groups: 8, kernel: 4, chunk: 128 };
const NEMOTRON_H_MOE = { experts: 8, shared: 1, ffn: 7688, topK: 2 };
const NEMOTRON_BLOCKS: Record<string, 'mamba' | 'attention' | 'mlp' | 'moe'> = {
  M: 'mamba',
  '*': 'attention',
  '-': 'mlp',
  E: 'moe',
  mamba: 'mamba',
  attention: 'attention',
  mlp: 'mlp',
  moe: 'moe',
  full_attention: 'attention',
};

/** The block of each layer: hybrid_override_pattern (M, *, -, E) or layers_block_type. */
function nemotronBlocks(c: Fields): ('mamba' | 'attention' | 'mlp' | 'moe')[] {
  const list = c.strList('layers_block_type');
  const pattern = list ?? [...c.str('hybrid_override_pattern')];
  const key = list ? 'layers_block_type' : 'hybrid_override_pattern';
  const blocks = pattern.map((p) => NEMOTRON_BLOCKS[p]);
  const bad = pattern.find((_, i) => blocks[i] === undefined);
  if (bad !== undefined || blocks.length === 0 || blocks.length > MAX_LAYERS)
    throw new ConfigError(`${c.path}${key}`, bad ?? pattern.length, 'blocks M, *, - or E');
  if (!list && c.has('num_hidden_layers') && c.int('num_hidden_layers') !== blocks.length)
    throw new ConfigError(
      `${c.path}hybrid_override_pattern`,
      `${blocks.length} entries`,
      `one entry per layer (num_hidden_layers ${c.int('num_hidden_layers')})`,
    );
  return blocks as ('mamba' | 'attention' | 'mlp' | 'moe')[];
}

/**
 * Nemotron-H MoE block (HF NemotronHMoE): a router over the hidden state (its e_score_correction_bias is not in
 * the checkpoint: NVIDIA-Nemotron-3-Nano-30B-A3B's Hub safetensors total, 31,577,937,344, leaves it out), routed
 * squared-ReLU experts (up, down) of moe_intermediate_size and a shared squared-ReLU MLP of
 * moe_shared_expert_intermediate_size x n_shared_experts. Latent MoE (moe_latent_size, Nemotron 3 Super/Ultra):
 * fc1_latent_proj hidden -> latent and fc2_latent_proj latent -> hidden (bias mlp_bias) around experts that work
 * at the latent width; router and shared expert stay at the hidden width.
 */
function nemotronMoe(c: Fields): { linears: Linear[]; experts: number; topK: number; ffn: number } {
  const hidden = c.int('hidden_size');
  const latent = c.optInt('moe_latent_size');
  const experts = c.int('n_routed_experts', NEMOTRON_H_MOE.experts);
  const topK = c.int('num_experts_per_tok', NEMOTRON_H_MOE.topK);
  const ffn = c.int('moe_intermediate_size', NEMOTRON_H_MOE.ffn);
  const shared =
    c.count('n_shared_experts', NEMOTRON_H_MOE.shared) *
    c.count('moe_shared_expert_intermediate_size', NEMOTRON_H_MOE.ffn);
  if (topK > experts)
    throw new ConfigError(`${c.path}num_experts_per_tok`, topK, `at most ${experts}`);
  const bias = c.bool('mlp_bias', false);
  const width = latent ?? hidden;
  return {
    linears: [
      lin('router', hidden, experts, false),
      ...(latent ? [lin('other', hidden, latent, bias), lin('other', latent, hidden, bias)] : []),
      ...mlp(width, ffn, false, bias, experts, topK),
      ...(shared > 0 ? mlp(hidden, shared, false, bias) : []),
    ],
    experts,
    topK,
    ffn,
  };
}

/** One Nemotron-H layer as vramplan runs it: a mixer block (Mamba2 or attention) and the MLP blocks after it. */
interface NemotronLayer {
  mixer: Mixer | null;
  mlps: number;
  moe: boolean;
}

/**
 * Folds the blocks into layers: each Mamba2 or attention block opens a layer and the MLP / MoE blocks that
 * follow it join that layer (blocks before the first mixer join the first), so params, KV and state are the
 * checkpoint's while a layer keeps the mixer + MLP shape the memory and time models read.
 */
function foldNemotron(blocks: ReturnType<typeof nemotronBlocks>, mixer: Mixer): NemotronLayer[] {
  const layers: NemotronLayer[] = [];
  let pending = { mlps: 0, moe: false };
  for (const b of blocks) {
    if (b === 'mlp' || b === 'moe') {
      const last = layers.at(-1);
      const into = last ?? pending;
      if (b === 'moe') into.moe = true;
      else into.mlps += 1;
      continue;
    }
    layers.push({ mixer: b === 'mamba' ? mixer : null, ...pending });
    pending = { mlps: 0, moe: false };
  }
  if (layers.length === 0)
    throw new ConfigError('hybrid_override_pattern', 'no M or * block', 'at least one mixer block');
  return layers;
}

/** One folded Nemotron-H layer's group: its mixer, its MLP / MoE blocks, one RMSNorm per block. */
function nemotronLayer(c: Fields, d: AttnDims, l: NemotronLayer): LayerGroup {
  const ffn = l.mlps * c.int('intermediate_size', NEMOTRON_INTERMEDIATE);
  const moe = l.moe ? nemotronMoe(c) : null;
  const bias = c.bool('mlp_bias', false);
  const m = l.mixer;
  const blocks = 1 + l.mlps + (l.moe ? 1 : 0);
  const base: GroupBase = {
    name: 'decoder',
    hidden: d.hidden,
    ...headShape(m, d),
    ffn: (moe ? moe.ffn : 0) + ffn,
    gated: false,
    experts: moe ? moe.experts : 1,
    topK: moe ? moe.topK : 1,
    norm: 'rms',
    normsPerLayer: blocks,
    parallelResidual: false,
    dropout: hasDropout(c, {}),
    causal: true,
    crossAttention: false,
    slidingWindow: m ? null : c.optInt('sliding_window'),
    mlaCacheWidth: null,
  };
  const attnBias = c.bool('attention_bias', false);
  const linears = [
    ...(m ? m.linears : attention(d, attnBias, attnBias)),
    ...(moe ? moe.linears : []),
    ...(ffn > 0 ? mlp(d.hidden, ffn, false, bias) : []),
  ];
  const other = blocks * d.hidden + (m ? m.params : 0);
  const layer = group(base, linears, other);
  return m ? { ...layer, recurrent: m.state } : layer;
}
// HF NemotronHConfig default intermediate_size=21504 (configuration_nemotron_h.py @cfeb552e).
const NEMOTRON_INTERMEDIATE = 21504;

/**
 * Nemotron-H (HF NemotronHForCausalLM): every block is one RMSNorm and one mixer (Mamba2, attention, a
 * squared-ReLU MLP or an MoE), read from hybrid_override_pattern; only the attention blocks keep KV.
 */
function nemotronH(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const d: AttnDims = {
    hidden,
    heads,
    kvHeads: c.int('num_key_value_heads', heads),
    headDim: c.has('head_dim') ? c.int('head_dim') : c.int('attention_head_dim', hidden / heads),
  };
  const mixer = mamba2Mixer({
    hidden,
    heads: c.int('mamba_num_heads', NEMOTRON_H.heads),
    headDim: c.int('mamba_head_dim', NEMOTRON_H.headDim),
    groups: c.int(['n_groups', 'mamba_n_groups'], NEMOTRON_H.groups),
    dState: c.int('ssm_state_size', NEMOTRON_H.dState),
    kernel: c.int(['conv_kernel', 'mamba_d_conv'], NEMOTRON_H.kernel),
    convBias: c.bool(['use_conv_bias', 'mamba_conv_bias'], true),
    projBias: c.bool(['mamba_proj_bias', 'use_bias'], false),
    stateBytes: ssmCacheBytes(c),
    // vLLM's NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype: the config's mamba_ssm_cache_dtype, else
    // float32 ("Only `float32` is known to have no accuracy issues by default", DEFAULT_MAMBA_SSM_CACHE_DTYPE in
    // vllm/model_executor/models/config.py, https://docs.vllm.ai/en/latest/api/vllm/model_executor/models/config/).
    vllmStateBytes: 4,
    chunk: c.int(['chunk_size', 'mamba_chunk_size'], NEMOTRON_H.chunk),
  });
  const perLayer = foldNemotron(nemotronBlocks(c), mixer).map((l) => nemotronLayer(c, d, l));
  const groups = mergeLayers(perLayer);
  const vocab = c.int('vocab_size');
  const tied = c.bool('tie_word_embeddings', false);
  const mtp = nemotronMtp(c, d, mixer);
  return {
    kind: 'causal-lm',
    groups: attentionFirst(groups),
    hidden,
    ...vocabFields(vocab, hidden, tied),
    otherParams: hidden,
    maxPositions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
    ...(mtp.layers > 0 ? { mtpLayers: mtp.layers, mtpParams: mtp.params } : {}),
  };
}

/**
 * Nemotron-H MTP (HF NemotronHConfig num_nextn_predict_layers with mtp_layers_block_type, or the checkpoints'
 * mtp_hybrid_override_pattern, e.g. "*E"): each MTP layer holds those blocks (one RMSNorm each), eh_proj
 * (2h -> h), enorm, hnorm and a final norm, and shares the embedding and lm_head: with latent MoE this gives
 * NVIDIA-Nemotron-3-Super-120B-A12B's Hub safetensors total, 123,611,012,096, exactly (as ParamCounts.checkpoint).
 * Not loaded (NemotronHPreTrainedModel `_keys_to_ignore_on_load_unexpected = [r"mtp.*"]`, transformers
 * models/nemotron_h/modular_nemotron_h.py @008d9e95), so kept in mtpParams.
 */
function nemotronMtp(c: Fields, d: AttnDims, mixer: Mixer): { params: number; layers: number } {
  const n = c.count('num_nextn_predict_layers', 0);
  const types = c.strList('mtp_layers_block_type');
  const pattern = c.has('mtp_hybrid_override_pattern')
    ? c.str('mtp_hybrid_override_pattern')
    : null;
  if (n === 0 || (!types && pattern === null)) return { params: 0, layers: 0 };
  const blocks = nemotronBlocks(
    new Fields(types ? { layers_block_type: types } : { hybrid_override_pattern: pattern }, c.path),
  );
  const layers = foldNemotron(blocks, mixer).map((l) => nemotronLayer(c, d, l));
  const h = d.hidden;
  const one = layers.reduce((s, g) => s + layerParamsOf(g), 0) + 2 * h * h + 3 * h;
  return { params: n * one, layers: n };
}

/**
 * Multi-token-prediction layers (DeepSeek-V3 num_nextn_predict_layers, Qwen3.5 mtp_num_hidden_layers): each is
 * one full-attention decoder layer plus fc (2h -> h, no bias), two pre-fc RMSNorms and a final norm; the
 * embedding and lm_head are shared (vLLM qwen3_next_mtp.py / deepseek_mtp.py). Stored in the checkpoint but
 * not loaded: transformers builds no module for them and silences their keys (`_keys_to_ignore_on_load_unexpected`:
 * Qwen3_5 / Qwen3Next `[r"^mtp.*"]`, Glm4Moe `[r"model\.layers\.92.*", r"model\.layers\.46.*"]`, Glm4MoeLite
 * `model\.layers\.47.*`, DeepseekV3 `model\.layers\.61.*`; huggingface/transformers main, models/<name>/
 * modular_<name>.py), so they are kept apart in mtpParams, out of otherParams.
 */
function withMtp(c: Fields, body: ArchBody, layout: MtpLayout = {}): ArchBody {
  const n = c.count(['mtp_num_hidden_layers', 'num_nextn_predict_layers'], 0);
  const layer =
    layout.pick?.(body.groups) ?? body.groups.find((g) => g.name === 'decoder' && !g.recurrent);
  if (n === 0 || !layer) return body;
  const h = body.hidden;
  const perLayer =
    layerParamsOf(layer) + 2 * h * h + 3 * h + (layout.ownVocab ? 2 * body.vocab * h : 0);
  return { ...body, mtpLayers: n, mtpParams: n * perLayer };
}

/** The decoder layer an MTP module repeats, and whether it stores its own embed_tokens and lm_head copy. */
interface MtpLayout {
  pick?: (groups: LayerGroup[]) => LayerGroup | undefined;
  ownVocab?: boolean;
}

const layerParamsOf = (g: LayerGroup): number =>
  g.linears.reduce((a, l) => a + (l.inFeatures + (l.bias ? 1 : 0)) * l.outFeatures * l.copies, 0) +
  g.otherParamsPerLayer;

// ---------------------------------------------------------------------------------------------
// Multimodal wrappers: the language model under text_config, a vision tower under vision_config

const TEXT_FIELDS = [
  'hidden_size',
  'num_hidden_layers',
  'num_attention_heads',
  'num_key_value_heads',
  'intermediate_size',
  'vocab_size',
] as const;

/** text_config, refused where it contradicts a top-level copy of a standard field; inherits tie and dtype. */
function textOf(c: Fields): Fields {
  const t = c.sub('text_config');
  for (const k of TEXT_FIELDS) {
    const top = c.raw[k];
    const inner = t.raw[k];
    if (top !== undefined && top !== null && inner !== undefined && inner !== null && top !== inner)
      throw new ConfigError(
        `${t.path}${k}`,
        inner,
        `the top-level ${k} (${showValue(top)}), or only one of the two`,
      );
  }
  const inherit: Json = {};
  for (const k of ['tie_word_embeddings', 'torch_dtype', 'dtype'])
    if (t.raw[k] === undefined && c.raw[k] !== undefined) inherit[k] = c.raw[k];
  return new Fields({ ...inherit, ...t.raw }, t.path);
}

interface Tower {
  group: LayerGroup;
  /** Embeddings, final norms, mergers and the projector into the language model. */
  params: number;
  input: VisionInput;
}

/** A bidirectional ViT block run: q/k/v/o and a 2- or 3-matrix MLP, two norms per layer. */
function visionGroup(k: {
  hidden: number;
  heads: number;
  headDim?: number;
  layers: number;
  ffn: number;
  gated: boolean;
  bias: boolean;
  norm: 'rms' | 'layer';
  /**
   * Roles whose module names no contract target matches (PEFT matches the names: Qwen's fused `qkv` and
   * `proj`, SigLIP's `out_proj`, `fc1`, `fc2`): read as 'other', which only 'all-linear' adapts.
   */
  unnamed?: readonly LinearRole[];
}): LayerGroup {
  const headDim = k.headDim ?? k.hidden / k.heads;
  const d: AttnDims = { hidden: k.hidden, heads: k.heads, kvHeads: k.heads, headDim };
  const base: GroupBase = {
    name: 'vision',
    hidden: k.hidden,
    heads: k.heads,
    kvHeads: k.heads,
    headDim,
    vHeadDim: headDim,
    ffn: k.ffn,
    gated: k.gated,
    experts: 1,
    topK: 1,
    norm: k.norm,
    normsPerLayer: 2,
    parallelResidual: false,
    dropout: false,
    causal: false,
    crossAttention: false,
    slidingWindow: null,
    mlaCacheWidth: null,
  };
  const linears = [...attention(d, k.bias, k.bias), ...mlp(k.hidden, k.ffn, k.gated, k.bias)].map(
    (l): Linear => (k.unnamed?.includes(l.role) ? { ...l, role: 'other' } : l),
  );
  return group(base, linears, 2 * normSize(k.hidden, k.norm === 'layer'), k.layers);
}

// Qwen2.5-VL model card: the examples cap images at max_pixels = 1280 * 28 * 28 (1280 tokens of 28 x 28 pixels).
const QWEN_DEFAULT_PIXELS = 1280 * 28 * 28;
// Qwen2_5_VLVisionConfig defaults (transformers configuration_qwen2_5_vl.py @018c8e03): window_size=112,
// fullatt_block_indexes=[7, 15, 23, 31].
const QWEN25_WINDOW_PX = 112;
const QWEN25_FULL_ATTENTION = [7, 15, 23, 31];

/**
 * Qwen2.5-VL / Qwen3-VL / Qwen3.5 vision towers (HF Qwen2_5_VisionTransformer, Qwen3VLVisionModel): a Conv3d
 * patch embedding over temporal_patch_size frames (bias in Qwen3-VL), learned position embeddings of
 * num_position_embeddings (Qwen3-VL), depth blocks (Qwen2.5-VL: RMSNorm and a gated MLP; Qwen3-VL: LayerNorm
 * and fc1/fc2), all with biases; a patch merger (norm, Linear(h*m^2, h*m^2), Linear(h*m^2, out_hidden_size))
 * and one more merger, normed after the shuffle, per deepstack_visual_indexes entry.
 */
function qwenVision(v: Fields, textHidden: number): Tower {
  const v25 = !v.has('num_position_embeddings') && !v.has('deepstack_visual_indexes');
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const merge = v.int('spatial_merge_size', 2);
  const temporal = v.int('temporal_patch_size', 2);
  const channels = v.int(['in_channels', 'in_chans'], RGB_CHANNELS);
  const out = v.int('out_hidden_size', textHidden);
  const g = visionGroup({
    hidden,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn: v.int('intermediate_size'),
    gated: v25,
    bias: true,
    norm: v25 ? 'rms' : 'layer',
    // Qwen2_5_VLVisionAttention qkv/proj, Qwen2_5_VLMLP gate_proj/up_proj/down_proj; Qwen3-VL linear_fc1/fc2.
    unnamed: v25 ? ['q', 'k', 'v', 'o'] : ['q', 'k', 'v', 'o', 'up', 'down'],
  });
  const m = hidden * merge * merge;
  const merger = (normDim: number) => normSize(normDim, !v25) + m * m + m + m * out + out;
  const params =
    channels * temporal * patch * patch * hidden +
    (v25 ? 0 : hidden + v.int('num_position_embeddings') * hidden) +
    merger(hidden) +
    v.intList('deepstack_visual_indexes').length * merger(m);
  // Qwen2_5_VisionTransformerPretrainedModel.forward (transformers modeling_qwen2_5_vl.py @00b676f8): blocks
  // outside fullatt_block_indexes attend within windows of window_size pixels (get_window_index); Qwen3-VL none.
  const window = v25 ? Math.floor(v.int('window_size', QWEN25_WINDOW_PX) / patch) ** 2 : null;
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: window,
    fullAttentionLayers: v25
      ? v.has('fullatt_block_indexes')
        ? v.intList('fullatt_block_indexes').length
        : QWEN25_FULL_ATTENTION.length
      : v.int('depth'),
    patchEmbedParams: channels * temporal * patch * patch * hidden,
    projectorParams: (1 + v.intList('deepstack_visual_indexes').length) * (m * m + m * out),
    inputGradHook: false,
  };
  return {
    group: g,
    params,
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: QWEN_DEFAULT_PIXELS,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Gemma 3 (HF Gemma3ForConditionalGeneration): a SigLIP tower without head (patch Conv2d with bias, learned
 * positions over (image_size/patch_size)^2, LayerNorm blocks with biases, post_layernorm) and the projector
 * (mm_input_projection_weight vision x text hidden, mm_soft_emb_norm): every image is pooled to
 * mm_tokens_per_image tokens (default 256, Gemma3Config).
 */
const GEMMA3_TOKENS_PER_IMAGE = 256;
// SiglipAttention q_proj/k_proj/v_proj/out_proj, SiglipMLP fc1/fc2 (transformers modeling_siglip.py).
const SIGLIP_UNNAMED: readonly LinearRole[] = ['o', 'up', 'down'];
function siglipVision(v: Fields, textHidden: number, top: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const channels = v.int('num_channels', RGB_CHANNELS);
  const g = visionGroup({
    hidden,
    heads: v.int('num_attention_heads'),
    layers: v.int('num_hidden_layers'),
    ffn: v.int('intermediate_size'),
    gated: false,
    bias: true,
    norm: 'layer',
    unnamed: SIGLIP_UNNAMED,
  });
  const positions = Math.floor(image / patch) ** 2;
  const params =
    channels * patch * patch * hidden +
    hidden +
    positions * hidden +
    normSize(hidden, true) +
    hidden * textHidden +
    hidden;
  const tokens = top.int('mm_tokens_per_image', GEMMA3_TOKENS_PER_IMAGE);
  // Every image is resized to image_size and runs all its positions through the tower before the projector
  // average-pools them (Gemma3MultiModalProjector); the tower is a SiglipVisionModel, whose
  // get_input_embeddings returns its patch_embedding (transformers modeling_siglip.py).
  const tower: VisionTower = {
    fixedPatches: positions,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: channels * patch * patch * hidden,
    projectorParams: hidden * textHidden,
    inputGradHook: true,
  };
  return {
    group: g,
    params,
    input: {
      patch,
      merge: 1,
      fixedTokens: tokens,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Llama 4 (HF Llama4VisionModel): unfold patch embedding (Linear, no bias), class embedding, positions over
 * (image_size/patch_size)^2 + 1, layernorm_pre/post, LayerNorm blocks with biases; the pixel-shuffle adapter
 * (fc1 intermediate_size -> projector_input_dim, fc2 -> projector_output_dim, bias multi_modal_projector_bias)
 * and multi_modal_projector (vision_output_dim -> text hidden, no bias). Shuffle ratio 0.5: 2x2 patches a token.
 */
function llama4Vision(v: Fields, textHidden: number): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const ffn = v.int('intermediate_size');
  const g = visionGroup({
    hidden,
    heads: v.int('num_attention_heads'),
    layers: v.int('num_hidden_layers'),
    ffn,
    gated: false,
    bias: true,
    norm: 'layer',
    unnamed: ['up', 'down'], // Llama4VisionAttention q/k/v/o_proj match; Llama4VisionMLP fc1/fc2 do not
  });
  const inDim = v.int('projector_input_dim');
  const outDim = v.int('projector_output_dim');
  const bias = v.bool('multi_modal_projector_bias', false) ? 1 : 0;
  const params =
    v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
    hidden +
    (Math.floor(image / patch) ** 2 + 1) * hidden +
    2 * normSize(hidden, true) +
    (ffn + bias) * inDim +
    (inDim + bias) * outDim +
    v.int('vision_output_dim') * textHidden;
  // pixel_shuffle_ratio r keeps 1/r^2 of the patches: (1/r) x (1/r) patches make one token.
  const merge = Math.round(1 / v.num('pixel_shuffle_ratio', 0.5));
  // Llama4VisionModel runs each image_size tile as its own sequence of patches plus the class embedding; the
  // pixel-shuffle MLP and the projector run on the shuffled tokens (transformers modeling_llama4.py).
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: image * image,
    extraTokens: 1,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden,
    projectorParams: ffn * inDim + inDim * outDim + v.int('vision_output_dim') * textHidden,
    inputGradHook: false,
  };
  return {
    group: g,
    params,
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Mistral 3 (HF Mistral3ForConditionalGeneration): a Pixtral tower (patch Conv2d without bias, ln_pre RMSNorm,
 * RMSNorm blocks with a gated MLP, no biases) and the projector (RMSNorm, patch merger Linear(h*m^2, h),
 * linear_1 h -> text hidden, linear_2 text -> text, bias multimodal_projector_bias).
 */
function pixtralVision(v: Fields, textHidden: number, top: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const merge = top.int('spatial_merge_size', 2);
  const heads = v.int('num_attention_heads');
  const g = visionGroup({
    hidden,
    heads,
    headDim: v.int('head_dim', hidden / heads),
    layers: v.int('num_hidden_layers'),
    ffn: v.int('intermediate_size'),
    gated: true,
    bias: false,
    norm: 'rms',
  });
  const bias = top.bool('multimodal_projector_bias', false) ? 1 : 0;
  const params =
    v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
    2 * hidden +
    hidden * merge * merge * hidden +
    (hidden + bias) * textHidden +
    (textHidden + bias) * textHidden;
  // PixtralVisionModel attends within each image (block-diagonal mask) and its get_input_embeddings returns
  // patch_conv (transformers modeling_pixtral.py); the merger and projector run per merged token.
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden,
    projectorParams:
      hidden * merge * merge * hidden + hidden * textHidden + textHidden * textHidden,
    inputGradHook: true,
  };
  return {
    group: g,
    params,
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/** A `*ForConditionalGeneration` wrapper: the language model from text_config plus its vision tower. */
function multimodal(
  text: (t: Fields) => ArchBody,
  tower: (v: Fields, textHidden: number, top: Fields) => Tower,
): (c: Fields) => ArchBody {
  return (c) => {
    const body = text(textOf(c));
    const v = tower(c.sub('vision_config'), body.hidden, c);
    return {
      ...body,
      groups: [...body.groups, v.group],
      otherParams: body.otherParams + v.params,
      vision: v.input,
    };
  };
}

/** Llama 4 text: MoE every interleave_moe_layer_step-th layer (or moe_layers) with a shared expert. */
function llama4Moe(c: Fields, i: number): Moe | null {
  const step = c.int('interleave_moe_layer_step', 1);
  const listed = c.intList('moe_layers');
  const isMoe = listed.length > 0 ? listed.includes(i) : (i + 1) % step === 0;
  if (!isMoe) return null;
  const ffn = c.int('intermediate_size');
  // HF Llama4TextMoe: router Linear(hidden, experts, bias=False), experts of intermediate_size and one
  // shared_expert Llama4TextMLP of intermediate_size, ungated.
  return {
    experts: c.int('num_local_experts'),
    topK: c.int('num_experts_per_tok', 1),
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn,
    sharedGate: false,
  };
}

/**
 * Llama 4 chunked attention: layers with RoPE attend within attention_chunk_size-token chunks, every
 * no_rope_layer_interval-th (NoPE) layer attends globally (HF Llama4TextConfig no_rope_layers / layer_types
 * "chunked_attention"); the cache of a chunked layer holds at most one chunk.
 */
function llama4Window(c: Fields, _f: LlamaFlavor, i: number): number | null {
  const chunk = c.optInt('attention_chunk_size');
  if (chunk === null) return null;
  const types = c.strList('layer_types');
  if (types) return types[i] === 'chunked_attention' ? chunk : null;
  const noRope = c.intList('no_rope_layers');
  const rope =
    noRope.length > 0 ? noRope[i] === 1 : (i + 1) % c.int('no_rope_layer_interval', 4) !== 0;
  return rope ? chunk : null;
}

// HF Llama4TextConfig defaults: intermediate_size_mlp=16384, tie_word_embeddings=False; QK L2 norm has no weight.
const LLAMA4_DENSE_FFN = 16384;
const llama4Text = llamaLike({
  tiedDefault: false,
  denseFfn: (c) => c.int('intermediate_size_mlp', LLAMA4_DENSE_FFN),
  moe: llama4Moe,
  window: llama4Window,
});

// ---------------------------------------------------------------------------------------------
// Today's families (issue 29), each read from its transformers modeling file (huggingface/transformers main,
// the commit named at each handler): GLM, OLMo 2/3, SmolLM3, Granite (+MoE), Cohere2, StarCoder2, EXAONE 4,
// Seed-OSS, ERNIE 4.5 (+MoE), Hunyuan V1 (+MoE), OLMoE, PhiMoE, MiniMax-M2

/** q_norm / k_norm over all heads at once (Olmo2Attention, OlmoeAttention, MiniMaxM2Attention = FlexOlmoAttention). */
const qkNormFull = (_c: Fields, d: AttnDims) => (d.heads + d.kvHeads) * d.headDim;

/** Per-head q/k RMSNorms (RMSNorm(head_dim) each) when the config's flag is set. */
const qkNormIf = (key: string, fallback: boolean) => (c: Fields, d: AttnDims) =>
  c.bool(key, fallback) ? 2 * d.headDim : 0;

// HF GlmConfig / Glm4Config (configuration_glm.py / configuration_glm4.py) default head_dim=128,
// attention_bias=True; GlmAttention (modeling_glm.py): q/k/v bias attention_bias, o_proj bias=False; Glm4DecoderLayer
// (modular_glm4.py @08c53278) adds post_self_attn_layernorm and post_mlp_layernorm (4 RMSNorms per layer).
const GLM_HEAD_DIM = 128;
const glmFlavor = (normsPerLayer: number): LlamaFlavor => ({
  tiedDefault: false,
  headDimDefault: GLM_HEAD_DIM,
  qkvBias: attentionBias(true),
  oBias: () => false,
  normsPerLayer,
});

// HF Glm4MoeConfig (configuration_glm4_moe.py @c7ec229a) defaults: n_routed_experts=128, n_shared_experts=1,
// moe_intermediate_size=1408, num_experts_per_tok=8, first_k_dense_replace=1, use_qk_norm=False, attention_bias=False.
const GLM4_MOE = { experts: 128, shared: 1, ffn: 1408, topK: 8, denseUntil: 1 };

/**
 * Glm4MoeMoE (modeling_glm4_moe.py @a0699c97): from layer first_k_dense_replace on, a sigmoid router (weight
 * experts x hidden, no bias, and an e_score_correction_bias per expert stored in the checkpoint), routed SwiGLU
 * experts of moe_intermediate_size and one shared MLP of moe_intermediate_size x n_shared_experts.
 */
function glm4Moe(c: Fields, i: number): Moe | null {
  const experts = c.count('n_routed_experts', GLM4_MOE.experts);
  if (experts === 0 || i < c.count('first_k_dense_replace', GLM4_MOE.denseUntil)) return null;
  const ffn = c.int('moe_intermediate_size', GLM4_MOE.ffn);
  return {
    experts,
    topK: c.int('num_experts_per_tok', GLM4_MOE.topK),
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn * c.count('n_shared_experts', GLM4_MOE.shared),
    sharedGate: false,
    extraParams: experts,
  };
}

const glm4MoeFlavor: LlamaFlavor = {
  tiedDefault: false,
  headDimDefault: GLM_HEAD_DIM,
  qkvBias: attentionBias(false),
  oBias: () => false,
  extraPerLayer: qkNormIf('use_qk_norm', false),
  moe: glm4Moe,
};

/**
 * GLM-4.5 / DeepSeek-V3 checkpoints store each MTP layer with its own embed_tokens and shared_head.head
 * (vLLM deepseek_mtp.py / glm4_moe_mtp.py load model.layers.<n>.embed_tokens and shared_head.head), and its
 * decoder layer is an MoE layer (layer index >= first_k_dense_replace).
 */
const GLM_MTP: MtpLayout = { pick: (groups) => groups.find((g) => g.experts > 1), ownVocab: true };

// HF Olmo3Config default layer_types: sliding_attention except every 4th layer.
const OLMO3_PATTERN = 4;
// HF Cohere2Config default sliding_window_pattern=4 (3 sliding : 1 global).
const COHERE2_PATTERN = 4;

/**
 * EXAONE 4 (HF Exaone4Config): sliding_window_pattern is a string of L (local) and G (global) repeated over the
 * layers (e.g. "LLLG"), or an int like Gemma's; layer_types wins when present.
 */
function exaoneSliding(c: Fields, i: number): boolean {
  const p = c.raw.sliding_window_pattern;
  if (typeof p === 'string' && p.length > 0) return p[i % p.length] === 'L';
  return patternSliding(OLMO3_PATTERN)(c, i);
}

// HF GraniteMoeConfig defaults: num_local_experts=8, num_experts_per_tok=2 (configuration_granitemoe.py).
const GRANITEMOE = { experts: 8, topK: 2 };

/** GraniteMoe(Shared)MoE: router Linear(hidden, experts, bias=False), SwiGLU experts (input_linear fused gate/up,
 * output_linear) of intermediate_size; GraniteMoeShared adds a shared SwiGLU MLP of shared_intermediate_size. */
const graniteMoeBlock =
  (shared: boolean) =>
  (c: Fields): Moe => ({
    experts: c.int('num_local_experts', GRANITEMOE.experts),
    topK: c.int('num_experts_per_tok', GRANITEMOE.topK),
    ffn: c.int('intermediate_size'),
    routerBias: false,
    expertBias: false,
    sharedFfn: shared ? c.count('shared_intermediate_size', 0) : 0,
    sharedGate: false,
  });

/**
 * Ernie4_5_MoeSparseMoeBlock (modular_ernie4_5_moe.py @01187e21): on layers with (i + 1) % moe_layer_interval == 0
 * and moe_layer_start_index <= i <= moe_layer_end_index (-1: the last layer), a router Linear(hidden, experts,
 * bias=False), moe_statics.e_score_correction_bias (one per expert), experts and moe_num_shared_experts shared
 * experts (one MLP of moe_intermediate_size x shared), all with bias use_bias.
 */
function ernieMoe(c: Fields, i: number): Moe | null {
  const experts = c.count('moe_num_experts', 0);
  const layers = c.int('num_hidden_layers');
  const endRaw = c.raw.moe_layer_end_index;
  const end = typeof endRaw === 'number' && endRaw >= 0 ? endRaw : layers - 1;
  const inRange =
    (i + 1) % c.int('moe_layer_interval', 1) === 0 && i >= c.count('moe_layer_start_index', 0);
  if (experts === 0 || !inRange || i > end) return null;
  const ffn = c.int('moe_intermediate_size');
  return {
    experts,
    topK: c.int('moe_k'),
    topKKey: 'moe_k',
    ffn,
    routerBias: false,
    expertBias: c.bool('use_bias', false),
    sharedFfn: ffn * c.count('moe_num_shared_experts', 0),
    sharedGate: false,
    extraParams: experts,
  };
}

/** A config value that is an int or a per-layer list of ints (Hunyuan num_experts, moe_topk). */
function perLayerInt(c: Fields, key: string, i: number, fallback: number): number {
  const v = c.raw[key];
  const x = Array.isArray(v) ? v[i] : v;
  if (x === undefined || x === null) return fallback;
  if (typeof x !== 'number' || !Number.isInteger(x) || x <= 0)
    throw new ConfigError(`${c.path}${key}`, v, 'a positive integer or one per layer');
  return x;
}

// HF HunYuanMoEV1Config defaults: num_experts=1, moe_topk=1 (configuration_hunyuan_v1_moe.py).
/**
 * HunYuanMoE (modular_hunyuan_v1_moe.py @05bf8f64): gate.wg Linear(hidden, experts, bias=False), experts and one
 * shared_mlp, every one a SwiGLU MLP of intermediate_size; num_experts / moe_topk may be per-layer lists.
 */
function hunyuanMoe(c: Fields, i: number): Moe {
  const ffn = c.int('intermediate_size');
  return {
    experts: perLayerInt(c, 'num_experts', i, 1),
    topK: perLayerInt(c, 'moe_topk', i, 1),
    topKKey: 'moe_topk',
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn,
    sharedGate: false,
  };
}

// HF OlmoeConfig defaults: num_experts=64, num_experts_per_tok=8 (configuration_olmoe.py).
const OLMOE = { experts: 64, topK: 8 };
const olmoeMoe = (c: Fields): Moe => ({
  experts: c.int('num_experts', OLMOE.experts),
  topK: c.int('num_experts_per_tok', OLMOE.topK),
  ffn: c.int('intermediate_size'),
  routerBias: false,
  expertBias: false,
  sharedFfn: 0,
  sharedGate: false,
});

/** MiniMax-M2 (modular_minimax_m2.py @ea9df1d3): Mixtral experts, a sigmoid router with an e_score_correction_bias. */
const minimaxM2Moe = (c: Fields): Moe => {
  const m = mixtralMoe(c);
  return { ...m, extraParams: m.experts };
};

// ---------------------------------------------------------------------------------------------
// LFM2 (Liquid): gated short convolutions beside GQA attention

// HF Lfm2Config (configuration_lfm2.py) defaults: conv_L_cache=3, conv_bias=False, block_multiple_of=256,
// block_auto_adjust_ff_dim=True, block_ffn_dim_multiplier=1.0, tie_embedding=True.
const LFM2 = { kernel: 3, multipleOf: 256, ffnMultiplier: 1 };

/**
 * Lfm2MLP (modeling_lfm2.py @0096ba4f): with block_auto_adjust_ff_dim the width is int(2/3 intermediate_size),
 * times block_ffn_dim_multiplier, rounded up to block_multiple_of.
 */
function lfm2Ffn(c: Fields): number {
  let ffn = c.int('intermediate_size');
  if (!c.bool('block_auto_adjust_ff_dim', true)) return ffn;
  ffn = Math.floor((2 * ffn) / 3);
  if (c.raw.block_ffn_dim_multiplier === null) return ffn;
  ffn = Math.floor(c.num('block_ffn_dim_multiplier', LFM2.ffnMultiplier) * ffn);
  const m = c.int('block_multiple_of', LFM2.multipleOf);
  return m * Math.ceil(ffn / m);
}

/**
 * Lfm2ShortConv (modeling_lfm2.py @0096ba4f): in_proj hidden -> 3 hidden (B, C, x), a depthwise Conv1d of kernel
 * conv_L_cache, out_proj, all with bias conv_bias. Its state per sequence is the conv window alone, hidden x
 * (conv_L_cache - 1) (vLLM MambaStateShapeCalculator.short_conv_state_shape); no temporal state. One mixer per
 * `conv` entry of layer_types (else every layer not in full_attn_idxs).
 */
function lfm2Conv(c: Fields, layers: number): (Mixer | null)[] {
  const h = c.int('hidden_size');
  const kernel = c.int('conv_L_cache', LFM2.kernel);
  const bias = c.bool('conv_bias', false);
  const mixer: Mixer = {
    linears: [lin('other', h, 3 * h, bias), lin('other', h, h, bias)],
    params: h * kernel + (bias ? h : 0),
    state: {
      kind: 'short-conv',
      heads: 1,
      keyDim: 0,
      valueDim: h,
      convChannels: h,
      convKernel: kernel,
      stateBytes: null,
      chunk: kernel,
    },
  };
  const attn = c.intList('full_attn_idxs');
  const types =
    layerTypesOf(c, layers) ??
    Array.from({ length: layers }, (_, i) => (attn.includes(i) ? 'full_attention' : 'conv'));
  return types.map((t) => (t === 'conv' ? mixer : null));
}

/** LFM2 configs spell tie_word_embeddings as tie_embedding (HF Lfm2Config / Lfm2MoeConfig read both). */
const lfm2Tie = (c: Fields): Fields =>
  c.has('tie_word_embeddings')
    ? c
    : new Fields({ ...c.raw, tie_word_embeddings: c.bool('tie_embedding', true) }, c.path);

// HF Lfm2MoeConfig (configuration_lfm2_moe.py @bd6769d7) defaults: num_dense_layers=2, num_experts=32,
// num_experts_per_tok=4, moe_intermediate_size=1792, use_expert_bias=True.
const LFM2_MOE = { dense: 2, experts: 32, topK: 4, ffn: 1792 };

/**
 * Lfm2MoeSparseMoeBlock (modular_lfm2_moe.py @e9702f25): after the first num_dense_layers layers (a SwiGLU MLP of
 * intermediate_size, not width-adjusted), a sigmoid router Linear(hidden, experts, bias=False), SwiGLU experts of
 * moe_intermediate_size and, with use_expert_bias, an expert_bias buffer per expert.
 */
function lfm2Moe(c: Fields, i: number): Moe | null {
  if (i < c.count('num_dense_layers', LFM2_MOE.dense)) return null;
  const experts = c.int('num_experts', LFM2_MOE.experts);
  return {
    experts,
    topK: c.int('num_experts_per_tok', LFM2_MOE.topK),
    ffn: c.int('moe_intermediate_size', LFM2_MOE.ffn),
    routerBias: false,
    expertBias: false,
    sharedFfn: 0,
    sharedGate: false,
    extraParams: c.bool('use_expert_bias', true) ? experts : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Jamba (AI21): Mamba (v1) layers, attention every attn_layer_period-th layer, MoE every expert_layer_period-th

// HF JambaConfig (configuration_jamba.py) defaults: attn_layer_period=8, attn_layer_offset=4, expert_layer_period=2,
// expert_layer_offset=1, num_experts=16, num_experts_per_tok=2, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2,
// mamba_dt_rank="auto" (ceil(hidden_size / 16)), mamba_conv_bias=True, mamba_proj_bias=False.
const JAMBA = {
  attnPeriod: 8,
  attnOffset: 4,
  expertPeriod: 2,
  expertOffset: 1,
  experts: 16,
  topK: 2,
  dState: 16,
  kernel: 4,
  expand: 2,
  dtRankDiv: 16,
};

/**
 * JambaMambaMixer (modeling_jamba.py, main @97bb61d0; Jamba-v0.1 gives the Hub's 51.6B): in_proj hidden -> 2 inner (x, z), a depthwise conv1d over inner, x_proj
 * inner -> dt_rank + 2 d_state (no bias), dt_proj dt_rank -> inner (with bias), A_log inner x d_state, D, out_proj,
 * and RMSNorms over dt (dt_rank), B and C (d_state each). State per sequence: conv inner x (d_conv - 1) and the
 * selective-scan state inner x d_state (vLLM mamba1_state_shape), read as inner heads of d_state x 1.
 */
function jambaMixers(c: Fields, layers: number): (Mixer | null)[] {
  const h = c.int('hidden_size');
  const inner = c.int('mamba_expand', JAMBA.expand) * h;
  const n = c.int('mamba_d_state', JAMBA.dState);
  const k = c.int('mamba_d_conv', JAMBA.kernel);
  const rank =
    typeof c.raw.mamba_dt_rank === 'number'
      ? c.int('mamba_dt_rank')
      : Math.ceil(h / JAMBA.dtRankDiv);
  const proj = c.bool('mamba_proj_bias', false);
  const convBias = c.bool('mamba_conv_bias', true);
  const mixer: Mixer = {
    linears: [
      lin('other', h, 2 * inner, proj),
      lin('other', inner, rank + 2 * n, false),
      lin('other', rank, inner, true),
      lin('other', inner, h, proj),
    ],
    params: inner * k + (convBias ? inner : 0) + inner * n + inner + rank + 2 * n,
    // Selective scan runs token by token (no chunk matrices): chunk 1.
    state: {
      kind: 'mamba',
      heads: inner,
      keyDim: n,
      valueDim: 1,
      convChannels: inner,
      convKernel: k,
      stateBytes: null,
      chunk: 1,
    },
  };
  const period = c.int('attn_layer_period', JAMBA.attnPeriod);
  const offset = c.count('attn_layer_offset', JAMBA.attnOffset);
  const blocks = c.strList('layers_block_type');
  return Array.from({ length: layers }, (_, i) =>
    (blocks ? blocks[i] === 'attention' : i % period === offset) ? null : mixer,
  );
}

function jambaMoe(c: Fields, i: number): Moe | null {
  const experts = c.int('num_experts', JAMBA.experts);
  const period = c.int('expert_layer_period', JAMBA.expertPeriod);
  if (experts <= 1 || i % period !== c.count('expert_layer_offset', JAMBA.expertOffset))
    return null;
  return {
    experts,
    topK: c.int('num_experts_per_tok', JAMBA.topK),
    ffn: c.int('intermediate_size'),
    routerBias: false,
    expertBias: false,
    sharedFfn: 0,
    sharedGate: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Falcon-H1 (TII): attention and a Mamba2 mixer side by side in every layer

// HF FalconH1Config (configuration_falcon_h1.py) defaults: mamba_n_heads=128, mamba_d_head="auto",
// mamba_n_groups=1, mamba_d_state=256, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=256, mamba_conv_bias=True,
// mamba_proj_bias=False, mamba_rms_norm=False, projectors_bias=False.
const FALCON_H1 = { heads: 128, groups: 1, dState: 256, kernel: 4, expand: 2, chunk: 256 };

/**
 * FalconH1Mixer (modular_falcon_h1.py @00511f5d): a Mamba2 mixer of d_ssm = mamba_d_ssm (else mamba_expand x
 * hidden) channels whose gated RMSNorm exists only with mamba_rms_norm, and whose out_proj bias is
 * projectors_bias.
 */
function falconH1Mixer(c: Fields): Mixer {
  const hidden = c.int('hidden_size');
  const heads = c.int('mamba_n_heads', FALCON_H1.heads);
  const inner = c.optInt('mamba_d_ssm') ?? c.int('mamba_expand', FALCON_H1.expand) * hidden;
  const headDim = typeof c.raw.mamba_d_head === 'number' ? c.int('mamba_d_head') : inner / heads;
  if (!Number.isInteger(headDim) || headDim * heads !== inner)
    throw new ConfigError(
      `${c.path}mamba_n_heads`,
      heads,
      `heads x mamba_d_head = mamba_d_ssm (${inner})`,
    );
  const m = mamba2Mixer({
    hidden,
    heads,
    headDim,
    groups: c.int('mamba_n_groups', FALCON_H1.groups),
    dState: c.int('mamba_d_state', FALCON_H1.dState),
    kernel: c.int('mamba_d_conv', FALCON_H1.kernel),
    convBias: c.bool('mamba_conv_bias', true),
    projBias: c.bool('mamba_proj_bias', false),
    stateBytes: ssmCacheBytes(c),
    chunk: c.int('mamba_chunk_size', FALCON_H1.chunk),
  });
  const [inProj, outProj] = m.linears;
  if (!inProj || !outProj) throw new ConfigError(`${c.path}mamba_d_ssm`, inner, 'a Mamba2 mixer');
  return {
    ...m,
    linears: [inProj, { ...outProj, bias: c.bool('projectors_bias', false) }],
    params: m.params - (c.bool('mamba_rms_norm', false) ? 0 : inner),
  };
}

/**
 * Falcon-H1 (HF FalconH1DecoderLayer): input_layernorm, then attention (LlamaAttention, bias attention_bias) and
 * the Mamba2 mixer on the same input, then pre_ff_layernorm and a SwiGLU MLP (bias mlp_bias). Read as two layer
 * groups of num_hidden_layers each: attention + MLP (KV grows with the context) and the mixer (fixed state).
 */
function falconH1(c: Fields): ArchBody {
  const body = llamaLike({ tiedDefault: false })(c);
  const attn = body.groups[0];
  if (!attn) throw new ConfigError(`${c.path}num_hidden_layers`, 0, 'a positive integer');
  const m = falconH1Mixer(c);
  const mixer: LayerGroup = {
    ...attn,
    heads: m.state.heads,
    kvHeads: m.state.heads,
    headDim: m.state.keyDim,
    vHeadDim: m.state.valueDim,
    ffn: 0,
    normsPerLayer: 0,
    slidingWindow: null,
    linears: m.linears,
    otherParamsPerLayer: m.params,
    recurrent: m.state,
  };
  return { ...body, groups: [...body.groups, mixer] };
}

// ---------------------------------------------------------------------------------------------
// Bamba (IBM): Mamba2 layers with attention at attn_layer_indices, a SwiGLU MLP on every layer

/** Bamba (HF BambaConfig, the Granite 4.0 hybrid's mamba_* keys and defaults): attention where attn_layer_indices. */
function bambaMixers(c: Fields, layers: number): (Mixer | null)[] {
  const attn = c.intList('attn_layer_indices');
  const all = graniteMamba(
    new Fields({ ...c.raw, layer_types: Array.from({ length: layers }, () => 'mamba') }, c.path),
    layers,
  );
  return all.map((m, i) => (attn.includes(i) ? null : m));
}

// ---------------------------------------------------------------------------------------------
// Qwen2-VL and LLaVA wrappers

/**
 * Qwen2-VL (HF Qwen2VisionTransformerPretrainedModel, modeling_qwen2_vl.py, main @928b5565; Qwen2-VL-7B's Hub total
 * reproduced exactly): a Conv3d patch embedding without
 * bias over temporal_patch_size frames, depth LayerNorm blocks (qkv and proj with bias, fc1/fc2 of embed_dim x
 * mlp_ratio with bias) and the PatchMerger (ln_q LayerNorm, Linear(e m^2, e m^2), Linear(e m^2, hidden_size)).
 */
function qwen2Vision(v: Fields, textHidden: number): Tower {
  const embed = v.int('embed_dim');
  const patch = v.int('patch_size');
  const merge = v.int('spatial_merge_size', 2);
  const temporal = v.int('temporal_patch_size', 2);
  const out = v.int('hidden_size', textHidden);
  // HF Qwen2VLVisionConfig default mlp_ratio=4.
  const ffn = Math.round(embed * v.num('mlp_ratio', 4));
  const g = visionGroup({
    hidden: embed,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn,
    gated: false,
    bias: true,
    norm: 'layer',
  });
  const m = embed * merge * merge;
  const params =
    v.int(['in_chans', 'in_channels'], RGB_CHANNELS) * temporal * patch * patch * embed +
    normSize(embed, true) +
    m * m +
    m +
    m * out +
    out;
  return {
    group: g,
    params,
    input: { patch, merge, fixedTokens: null, defaultPixels: QWEN_DEFAULT_PIXELS, maxPixels: null },
  };
}

// HF CLIPVisionConfig defaults (configuration_clip.py): hidden_size=768, intermediate_size=3072,
// num_hidden_layers=12, num_attention_heads=12, image_size=224, patch_size=32.
const CLIP_VISION = { hidden: 768, ffn: 3072, layers: 12, heads: 12, image: 224, patch: 32 };
// LLaVA-NeXT anyres: the base image plus the tiles of its best grid; 2 x 2 tiles (image_grid_pinpoints 672 x 672)
// is the common case, 5 images of image_size^2 in all (HF LlavaNextForConditionalGeneration pack_image_features).
const LLAVA_NEXT_VIEWS = 5;

/**
 * LLaVA / LLaVA-NeXT (HF LlavaForConditionalGeneration, LlavaNextForConditionalGeneration): a CLIP tower
 * (CLIPVisionModel: patch Conv2d without bias, class embedding, (image/patch)^2 + 1 positions, pre_layrnorm,
 * LayerNorm blocks with biases, post_layernorm) and the projector linear_1 (vision hidden x feature layers ->
 * text hidden), GELU, linear_2 (text -> text), bias multimodal_projector_bias (default True); NeXT adds
 * image_newline (one text-hidden vector). Each image view becomes (image/patch)^2 tokens (CLS dropped).
 */
function llavaVision(next: boolean) {
  return (v: Fields, textHidden: number, top: Fields): Tower => {
    const kind = v.str('model_type', 'clip_vision_model');
    if (kind !== 'clip_vision_model')
      throw new ConfigError(`${v.path}model_type`, kind, "'clip_vision_model' (a CLIP tower)");
    const hidden = v.int('hidden_size', CLIP_VISION.hidden);
    const patch = v.int('patch_size', CLIP_VISION.patch);
    const image = v.int('image_size', CLIP_VISION.image);
    const g = visionGroup({
      hidden,
      heads: v.int('num_attention_heads', CLIP_VISION.heads),
      layers: v.int('num_hidden_layers', CLIP_VISION.layers),
      ffn: v.int('intermediate_size', CLIP_VISION.ffn),
      gated: false,
      bias: true,
      norm: 'layer',
    });
    const layers = top.raw.vision_feature_layer;
    const featureIn = hidden * (Array.isArray(layers) ? layers.length : 1);
    const bias = top.bool('multimodal_projector_bias', true) ? 1 : 0;
    const patches = Math.floor(image / patch) ** 2;
    const params =
      v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
      hidden +
      (patches + 1) * hidden +
      2 * normSize(hidden, true) +
      (featureIn + bias) * textHidden +
      (textHidden + bias) * textHidden +
      (next ? textHidden : 0);
    const input: VisionInput = next
      ? {
          patch,
          merge: 1,
          fixedTokens: null,
          defaultPixels: LLAVA_NEXT_VIEWS * image * image,
          maxPixels: null,
        }
      : { patch, merge: 1, fixedTokens: patches, defaultPixels: image * image, maxPixels: null };
    return { group: g, params, input };
  };
}

// The text defaults LLaVA configs rely on (their text_config often names only what differs from the class):
// HF LlamaConfig (configuration_llama.py) and MistralConfig (configuration_mistral.py) defaults.
const TEXT_DEFAULTS: Record<string, Json> = {
  llama: {
    vocab_size: 32000,
    hidden_size: 4096,
    intermediate_size: 11008,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    max_position_embeddings: 2048,
  },
  mistral: {
    vocab_size: 32000,
    hidden_size: 4096,
    intermediate_size: 14336,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    max_position_embeddings: 131072,
    sliding_window: 4096,
  },
};

// HF Glm4vVisionConfig defaults (configuration_glm4v.py): spatial_merge_size=2, temporal_patch_size=2, in_channels=3.
/**
 * GLM-4.1V / GLM-4.5V vision tower (HF Glm4vVisionModel, modeling_glm4v.py @03eac6f6): learned positions over
 * (image_size/patch_size)^2, a Conv3d patch embedding with bias, post_conv_layernorm, depth RMSNorm blocks (qkv
 * with bias attention_bias, proj without; a SwiGLU MLP hidden -> out_hidden_size -> hidden without bias),
 * post_layernorm, the downsample Conv2d (hidden -> out_hidden_size, kernel = stride = spatial_merge_size, with bias)
 * and the merger (proj out x out, LayerNorm, SwiGLU out -> intermediate_size -> out, no biases).
 */
function glm4vVision(v: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const merge = v.int('spatial_merge_size', 2);
  const out = v.int('out_hidden_size');
  const g = visionGroup({
    hidden,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn: out,
    gated: true,
    bias: v.bool('attention_bias', false),
    norm: 'rms',
  });
  const noBias = new Set<LinearRole>(['o', 'gate', 'up', 'down']);
  const linears = g.linears.map((l) => (noBias.has(l.role) ? { ...l, bias: false } : l));
  const ffn = v.int('intermediate_size');
  const params =
    Math.floor(image / patch) ** 2 * hidden +
    v.int('in_channels', RGB_CHANNELS) * v.int('temporal_patch_size', 2) * patch * patch * hidden +
    hidden +
    2 * hidden +
    hidden * out * merge * merge +
    out +
    out * out +
    normSize(out, true) +
    3 * out * ffn;
  return {
    group: { ...g, linears },
    params,
    input: { patch, merge, fixedTokens: null, defaultPixels: image * image, maxPixels: null },
  };
}

// Glm4vTextAttention (modeling_glm4v.py @03eac6f6): q/k/v always with bias, o_proj without, head_dim = hidden /
// heads; Glm4vTextDecoderLayer has the 4 RMSNorms of Glm4.
const glm4vText: LlamaFlavor = {
  tiedDefault: false,
  qkvBias: () => true,
  oBias: () => false,
  normsPerLayer: 4,
};

/** The text config with head_dim dropped: Glm4vTextAttention takes hidden_size / num_attention_heads. */
const withoutHeadDim = (t: Fields): Fields => {
  const { head_dim: _unused, ...rest } = t.raw;
  return new Fields(rest, t.path);
};

/** LLaVA wrappers: text_config (default model_type llama, HF LlavaConfig) over its class defaults, a CLIP tower. */
function llava(next: boolean) {
  return (c: Fields): ArchBody => {
    const raw = isObject(c.raw.text_config) ? c.raw.text_config : {};
    const type = typeof raw.model_type === 'string' ? raw.model_type : 'llama';
    const text = { ...(TEXT_DEFAULTS[type] ?? {}), ...raw };
    const filled = new Fields({ ...c.raw, text_config: text }, c.path);
    return multimodal((t) => textBuild(type, t), llavaVision(next))(filled);
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

/** ERNIE 4.5 (HF Ernie4_5): every linear and lm_head with bias use_bias (default False); tie_word_embeddings default True. */
const ERNIE = {
  tiedDefault: true,
  qkvBias: useBias(false),
  mlpBias: useBias(false),
  lmHeadBias: useBias(false),
};

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
  // The MTP layer (model.layers.61) as GLM's: DeepSeek-R1's Hub total 684,489,845,504 as ParamCounts.checkpoint.
  deepseek_v3: {
    architecture: 'DeepseekV3ForCausalLM',
    build: (c) => withMtp(c, deepseek(true)(c), GLM_MTP),
  },
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
  qwen3_next: {
    architecture: 'Qwen3NextForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(true))(c)),
  },
  qwen3_5_text: {
    architecture: 'Qwen3_5ForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(false))(c)),
  },
  qwen3_5_moe_text: {
    architecture: 'Qwen3_5MoeForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(true))(c)),
  },
  qwen3_5: {
    architecture: 'Qwen3_5ForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(qwenHybrid(false))(t)), qwenVision),
  },
  qwen3_5_moe: {
    architecture: 'Qwen3_5MoeForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(qwenHybrid(true))(t)), qwenVision),
  },
  qwen3_vl: {
    architecture: 'Qwen3VLForConditionalGeneration',
    build: multimodal((t) => textBuild('qwen3', t), qwenVision),
  },
  qwen3_vl_moe: {
    architecture: 'Qwen3VLMoeForConditionalGeneration',
    build: multimodal((t) => textBuild('qwen3_moe', t), qwenVision),
  },
  // Qwen2.5-VL configs keep the language fields at the top level (text_config only in newer exports).
  qwen2_5_vl: {
    architecture: 'Qwen2_5_VLForConditionalGeneration',
    build: (c) =>
      multimodal(
        (t) => textBuild('qwen2', t),
        qwenVision,
      )(isObject(c.raw.text_config) ? c : new Fields({ ...c.raw, text_config: c.raw }, c.path)),
  },
  gemma3: {
    architecture: 'Gemma3ForConditionalGeneration',
    // HF Gemma3TextConfig defaults the published wrappers leave out: vocab_size=262208,
    // max_position_embeddings=131072 (configuration_gemma3.py).
    build: multimodal(
      (t) =>
        textBuild(
          'gemma3_text',
          new Fields({ vocab_size: 262208, max_position_embeddings: 131072, ...t.raw }, t.path),
        ),
      siglipVision,
    ),
  },
  llama4_text: { architecture: 'Llama4ForCausalLM', build: llama4Text },
  llama4: {
    architecture: 'Llama4ForConditionalGeneration',
    build: multimodal(llama4Text, llama4Vision),
  },
  mistral3: {
    architecture: 'Mistral3ForConditionalGeneration',
    build: multimodal((t) => textBuild('mistral', t), pixtralVision),
  },
  nemotron_h: { architecture: 'NemotronHForCausalLM', build: nemotronH },
  granitemoehybrid: { architecture: 'GraniteMoeHybridForCausalLM', build: llamaLike(granite) },
  glm: { architecture: 'GlmForCausalLM', build: llamaLike(glmFlavor(2)) },
  glm4: { architecture: 'Glm4ForCausalLM', build: llamaLike(glmFlavor(4)) },
  glm4_moe: {
    architecture: 'Glm4MoeForCausalLM',
    build: (c) => withMtp(c, llamaLike(glm4MoeFlavor)(c), GLM_MTP),
  },
  // GLM-4.7-Flash: DeepSeek-V3 layout (MLA, sigmoid router with correction bias, shared experts) under its own name.
  glm4_moe_lite: {
    architecture: 'Glm4MoeLiteForCausalLM',
    build: (c) => withMtp(c, deepseek(true)(c), GLM_MTP),
  },
  // HF Olmo2DecoderLayer (modular_olmo2.py, main @46474e67): post_attention_layernorm + post_feedforward_layernorm;
  // Olmo2Config tie=False. OLMo-2-1124-7B's Hub total is reproduced exactly (test/core/models-families.test.ts).
  olmo2: {
    architecture: 'Olmo2ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull }),
  },
  olmo3: {
    architecture: 'Olmo3ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNormFull,
      slidingLayer: patternSliding(OLMO3_PATTERN),
    }),
  },
  // HF SmolLM3Config default tie_word_embeddings=True; no_rope_layers change no parameter or cache.
  smollm3: {
    architecture: 'SmolLM3ForCausalLM',
    build: llamaLike({ tiedDefault: true, slidingLayer: qwenSliding }),
  },
  // HF GraniteConfig: Llama layout with multipliers (no parameters), tie_word_embeddings default False.
  granite: { architecture: 'GraniteForCausalLM', build: llamaLike({ tiedDefault: false }) },
  granitemoe: {
    architecture: 'GraniteMoeForCausalLM',
    build: llamaLike({ tiedDefault: false, moe: graniteMoeBlock(false) }),
  },
  granitemoeshared: {
    architecture: 'GraniteMoeSharedForCausalLM',
    build: llamaLike({ tiedDefault: false, moe: graniteMoeBlock(true) }),
  },
  // HF Cohere (modeling_cohere.py: Command R, R+, Aya): CohereLayerNorm (weight only), one input_layernorm for
  // attention and MLP run in parallel, q_norm / k_norm CohereLayerNorm((heads, head_dim)) when use_qk_norm;
  // CohereConfig tie_word_embeddings default True.
  cohere: {
    architecture: 'CohereForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      normBias: false,
      parallel: () => true,
      extraPerLayer: (c, d) =>
        c.bool('use_qk_norm', false) ? (d.heads + d.kvHeads) * d.headDim : 0,
    }),
  },
  // HF Cohere2 (modular_cohere2.py, main @64c2ae8f): CohereLayerNorm (weight only), one input_layernorm for attention and MLP
  // run in parallel, tie_word_embeddings default True.
  cohere2: {
    architecture: 'Cohere2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      normBias: false,
      parallel: () => true,
      slidingLayer: patternSliding(COHERE2_PATTERN),
    }),
  },
  // HF Starcoder2 (modular_starcoder2.py, main @ae005ce1; starcoder2-7b's Hub total reproduced): LayerNorm with bias, q/k/v/o and c_fc/c_proj with bias use_bias
  // (default True), 2-matrix GELU MLP, sliding_window on every layer; tie_word_embeddings default True.
  starcoder2: {
    architecture: 'Starcoder2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      ungated: true,
      qkvBias: useBias(true),
      mlpBias: useBias(true),
      slidingLayer: everyLayerIfSet,
    }),
  },
  // HF Exaone4 (modular_exaone4.py @008e5743): per-head q/k RMSNorms, post-attention and post-feedforward norms.
  exaone4: {
    architecture: 'Exaone4ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm, slidingLayer: exaoneSliding }),
  },
  // HF SeedOssAttention (modular_seed_oss.py @052b1dcd): q/k/v bias attention_bias, o_proj bias attention_out_bias,
  // MLP bias mlp_bias; head_dim from the config (80 x 128 heads over 5120 in Seed-OSS-36B).
  seed_oss: {
    architecture: 'SeedOssForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: attentionBias(true),
      oBias: (c) => c.bool('attention_out_bias', false),
    }),
  },
  // HF Ernie4_5: every linear and lm_head with bias use_bias (default False); tie_word_embeddings default True.
  ernie4_5: { architecture: 'Ernie4_5ForCausalLM', build: llamaLike(ERNIE) },
  ernie4_5_moe: {
    architecture: 'Ernie4_5_MoeForCausalLM',
    build: llamaLike({ ...ERNIE, moe: ernieMoe }),
  },
  // HF HunYuanDenseV1 / HunYuanMoEV1Attention (modular_hunyuan_v1_moe.py @05bf8f64): query_layernorm and
  // key_layernorm (RMSNorm(head_dim)) on every layer, q/k/v/o bias attention_bias; HunYuanDenseV1Config
  // tie_word_embeddings default False.
  hunyuan_v1_dense: {
    architecture: 'HunYuanDenseV1ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm }),
  },
  hunyuan_v1_moe: {
    architecture: 'HunYuanMoEV1ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNorm,
      moe: hunyuanMoe,
    }),
  },
  olmoe: {
    architecture: 'OlmoeForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull, moe: olmoeMoe }),
  },
  // HF PhimoeConfig: LayerNorm with bias, attention_bias default False, lm_head_bias default False, tie False.
  phimoe: {
    architecture: 'PhimoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      norm: 'layer',
      moe: mixtralMoe,
      lmHeadBias: (c) => c.bool('lm_head_bias', false),
      slidingLayer: everyLayerIfSet,
    }),
  },
  // HF MiniMaxM2Config (modular_minimax_m2.py @ea9df1d3): tie_word_embeddings default False; q/k norms over all heads.
  minimax_m2: {
    architecture: 'MiniMaxM2ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull, moe: minimaxM2Moe }),
  },
  // HF Lfm2Config: tie_embedding (tie_word_embeddings) default True; q/k RMSNorm(head_dim) on attention layers.
  lfm2: {
    architecture: 'Lfm2ForCausalLM',
    build: (c) =>
      llamaLike({ tiedDefault: true, extraPerLayer: qkNorm, mixer: lfm2Conv, denseFfn: lfm2Ffn })(
        lfm2Tie(c),
      ),
  },
  lfm2_moe: {
    architecture: 'Lfm2MoeForCausalLM',
    build: (c) =>
      llamaLike({ tiedDefault: true, extraPerLayer: qkNorm, mixer: lfm2Conv, moe: lfm2Moe })(
        lfm2Tie(c),
      ),
  },
  // HF JambaConfig default tie_word_embeddings=False; input_layernorm + pre_ff_layernorm per layer.
  jamba: {
    architecture: 'JambaForCausalLM',
    build: llamaLike({ tiedDefault: false, mixer: jambaMixers, moe: jambaMoe }),
  },
  falcon_h1: { architecture: 'FalconH1ForCausalLM', build: falconH1 },
  // HF BambaConfig default tie_word_embeddings=False; input_layernorm + pre_ff_layernorm, SwiGLU MLP every layer.
  bamba: {
    architecture: 'BambaForCausalLM',
    build: llamaLike({ tiedDefault: false, mixer: bambaMixers }),
  },
  // Qwen2-VL configs keep the language fields at the top level, like Qwen2.5-VL.
  qwen2_vl: {
    architecture: 'Qwen2VLForConditionalGeneration',
    build: (c) =>
      multimodal(
        (t) => textBuild('qwen2', t),
        qwen2Vision,
      )(isObject(c.raw.text_config) ? c : new Fields({ ...c.raw, text_config: c.raw }, c.path)),
  },
  llava: { architecture: 'LlavaForConditionalGeneration', build: llava(false) },
  llava_next: { architecture: 'LlavaNextForConditionalGeneration', build: llava(true) },
  glm4v: {
    architecture: 'Glm4vForConditionalGeneration',
    build: multimodal((t) => llamaLike(glm4vText)(withoutHeadDim(t)), glm4vVision),
  },
  // GLM-4.5V: the GLM-4.5-Air language model (glm4v_moe_text: Glm4Moe layers) under the GLM-4.1V tower.
  glm4v_moe: {
    architecture: 'Glm4vMoeForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(glm4MoeFlavor)(t), GLM_MTP), glm4vVision),
  },
};

/** The text handler of a wrapper's language model. */
function textBuild(modelType: string, t: Fields): ArchBody {
  const h = HANDLERS[modelType];
  if (!h) throw new ConfigError('model_type', modelType, 'a known text model_type');
  return h.build(t, h.architecture);
}

/** model_type values `archFromHfConfig` understands. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = Object.keys(HANDLERS);

/** Each model_type with the transformers class it is read as (docs/architectures.md's list is made from it). */
export const SUPPORTED_ARCHITECTURES: readonly { modelType: string; architecture: string }[] =
  Object.entries(HANDLERS).map(([modelType, h]) => ({ modelType, architecture: h.architecture }));

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

// ---------------------------------------------------------------------------------------------
// Unknown model_type: the closest known layout, every assumption named

/** The standard fields a config needs to be read as a decoder (experts are read when present). */
const STANDARD_FIELDS = TEXT_FIELDS;
const EXPERT_KEYS = ['num_experts', 'num_local_experts', 'n_routed_experts'] as const;

/**
 * A handler for a model_type vramplan has no reader for: a config with the standard fields (top level or
 * text_config) is read as a llama-like decoder, its experts and Gated DeltaNet layers where it names them;
 * anything else is refused with the list of missing fields.
 */
function closestLayout(c: Fields, modelType: unknown): Handler {
  const nested = isObject(c.raw.text_config) ? textOf(c) : null;
  const t = nested ?? c;
  const missing = STANDARD_FIELDS.filter((k) => !t.has(k));
  if (typeof modelType !== 'string' || missing.length > 0)
    throw new ConfigError(
      'model_type',
      modelType,
      `one of ${SUPPORTED_MODEL_TYPES.join(', ')}; or any model_type with the standard fields (missing: ${missing.join(', ') || 'model_type'})`,
    );
  const experts = EXPERT_KEYS.find((k) => t.count(k, 0) > 0);
  const hybrid = (t.strList('layer_types') ?? []).includes('linear_attention');
  const flavor: LlamaFlavor = {
    tiedDefault: false,
    ...(experts ? { moe: genericMoe(experts) } : {}),
    ...(hybrid ? { mixer: gatedDeltaNet, gatedQuery: t.has('linear_num_value_heads') } : {}),
  };
  const assumptions = [
    `model_type '${modelType}' is not one vramplan reads: estimated as a llama-like decoder (closest known layout)`,
    `${t.path}layers: ${t.bool('attention_bias', false) ? 'q/k/v/o with bias (attention_bias)' : 'q/k/v/o without bias'}, gated SiLU MLP of intermediate_size, 2 RMSNorms per layer, no q/k norm`,
    `${t.path}tie_word_embeddings: ${t.bool('tie_word_embeddings', false) ? 'tied' : 'untied (default assumed False)'}`,
    ...(experts
      ? [
          `experts: ${t.count(experts, 0)} (${experts}), top-k num_experts_per_tok, width moe_intermediate_size (else intermediate_size), every layer MoE unless mlp_only_layers / first_k_dense_replace`,
        ]
      : []),
    ...(hybrid
      ? [
          'layer_types linear_attention: read as Gated DeltaNet layers (linear_* fields, Qwen3-Next defaults)',
        ]
      : []),
    ...(nested
      ? []
      : t.has('vision_config')
        ? ['vision_config: not read (no vision tower counted)']
        : []),
    ...(t.has('sliding_window')
      ? ['sliding_window: on the layers layer_types names sliding_attention, else none']
      : []),
  ];
  return {
    architecture: 'unknown',
    build: (x) => {
      const body = withMtp(nested ?? x, llamaLike(flavor)(nested ?? x));
      return { ...body, assumptions };
    },
  };
}

/** Experts under a generic config's own keys, shared experts where it names them. */
function genericMoe(key: (typeof EXPERT_KEYS)[number]) {
  return (c: Fields, i: number): Moe | null => {
    if (c.intList('mlp_only_layers').includes(i) || i < c.count('first_k_dense_replace', 0))
      return null;
    const ffn = c.int('moe_intermediate_size', c.int('intermediate_size'));
    const sharedFfn =
      c.count('shared_expert_intermediate_size', 0) || ffn * c.count('n_shared_experts', 0);
    return {
      experts: c.int(key),
      topK: c.int(['num_experts_per_tok', 'experts_per_token', 'moe_topk'], 1),
      ffn,
      routerBias: false,
      expertBias: false,
      sharedFfn,
      sharedGate: false,
    };
  };
}

/** Normalize one Hugging Face config.json object. Throws ConfigError on anything it cannot read. */
export function archFromHfConfig(config: unknown, meta: { id: string; hfId: string | null }): Arch {
  if (!isObject(config)) throw new ConfigError('(root)', config, 'a JSON object');
  const c = new Fields(config);
  const modelType = config.model_type;
  const known =
    typeof modelType === 'string' && Object.hasOwn(HANDLERS, modelType)
      ? HANDLERS[modelType]
      : undefined;
  const handler = known ?? closestLayout(c, modelType);
  const names = c.strList('architectures');
  const architecture = names?.[0] ?? handler.architecture;
  const body = handler.build(c, architecture);
  const nested = isObject(config.text_config) ? c.sub('text_config') : null;
  const arch: Arch = {
    id: meta.id,
    hfId: meta.hfId,
    modelType: String(modelType),
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
