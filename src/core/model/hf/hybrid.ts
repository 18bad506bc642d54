/** Hybrid decoders: Gated DeltaNet beside full attention (Qwen3-Next, Qwen3.5) and Mamba2 hybrids (Nemotron-H, Granite 4.0). */
import type { LayerGroup, Linear } from '../arch.js';
import { attention, group, hasDropout, lin, mergeLayers, mlp } from './blocks.js';
import type { ArchBody, AttnDims, GroupBase } from './blocks.js';
import { ConfigError, DTYPES, Fields, MAX_LAYERS } from './fields.js';
import {
  DEFAULT_MAX_POSITIONS,
  attentionFirst,
  headShape,
  qkNorm,
  qwenMoe,
  vocabFields,
} from './llama.js';
import type { LlamaFlavor, Mixer, Moe } from './llama.js';

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
export function layerTypesOf(c: Fields, layers: number): string[] | null {
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
export function gatedDeltaNet(c: Fields, layers: number): (Mixer | null)[] {
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
export const qwenHybrid = (moe: boolean): LlamaFlavor => ({
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
export function mamba2Mixer(m: Mamba2Dims): Mixer {
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
export function ssmCacheBytes(c: Fields): number | null {
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
export function graniteMamba(c: Fields, layers: number): (Mixer | null)[] {
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

export const granite: LlamaFlavor = {
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
export function nemotronH(c: Fields): ArchBody {
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
export function withMtp(c: Fields, body: ArchBody, layout: MtpLayout = {}): ArchBody {
  const n = c.count(['mtp_num_hidden_layers', 'num_nextn_predict_layers'], layout.absent ?? 0);
  const layer =
    layout.pick?.(body.groups) ?? body.groups.find((g) => g.name === 'decoder' && !g.recurrent);
  if (n === 0 || !layer) return body;
  const h = body.hidden;
  const perLayer =
    layerParamsOf(layer) + 2 * h * h + 3 * h + (layout.ownVocab ? 2 * body.vocab * h : 0);
  return { ...body, mtpLayers: n, mtpParams: n * perLayer };
}

/** The decoder layer an MTP module repeats, and whether it stores its own embed_tokens and lm_head copy. */
export interface MtpLayout {
  pick?: (groups: LayerGroup[]) => LayerGroup | undefined;
  ownVocab?: boolean;
  /** MTP layers where the config counts none (the checkpoint ships them regardless). */
  absent?: number;
}

const layerParamsOf = (g: LayerGroup): number =>
  g.linears.reduce((a, l) => a + (l.inFeatures + (l.bias ? 1 : 0)) * l.outFeatures * l.copies, 0) +
  g.otherParamsPerLayer;
