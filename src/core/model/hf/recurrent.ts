/** Decoders with recurrent mixers: LFM2 short convolutions, Jamba (Mamba v1), Falcon-H1, Bamba. */
import type { LayerGroup } from '../arch.js';
import { lin } from './blocks.js';
import type { ArchBody } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import { graniteMamba, layerTypesOf, mamba2Mixer, ssmCacheBytes } from './hybrid.js';
import { llamaLike } from './llama.js';
import { selectiveScanMixer } from './ssm.js';
import type { Mixer, Moe } from './llama.js';

// ---------------------------------------------------------------------------------------------
// LFM2 (Liquid): gated short convolutions beside GQA attention

// HF Lfm2Config (configuration_lfm2.py) defaults: conv_L_cache=3, conv_bias=False, block_multiple_of=256,
// block_auto_adjust_ff_dim=True, block_ffn_dim_multiplier=1.0, tie_embedding=True.
const LFM2 = { kernel: 3, multipleOf: 256, ffnMultiplier: 1 };

/**
 * Lfm2MLP (modeling_lfm2.py @0096ba4f): with block_auto_adjust_ff_dim the width is int(2/3 intermediate_size),
 * times block_ffn_dim_multiplier, rounded up to block_multiple_of.
 */
export function lfm2Ffn(c: Fields): number {
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
export function lfm2Conv(c: Fields, layers: number): (Mixer | null)[] {
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
export const lfm2Tie = (c: Fields): Fields =>
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
export function lfm2Moe(c: Fields, i: number): Moe | null {
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
export function jambaMixers(c: Fields, layers: number): (Mixer | null)[] {
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
  // dt_rank + 2 d_state: the RMSNorms over dt, B and C.
  const mixer = selectiveScanMixer({
    h,
    inner,
    n,
    k,
    rank,
    bias: proj,
    convBias,
    normParams: rank + 2 * n,
  });
  const period = c.int('attn_layer_period', JAMBA.attnPeriod);
  const offset = c.count('attn_layer_offset', JAMBA.attnOffset);
  const blocks = c.strList('layers_block_type');
  return Array.from({ length: layers }, (_, i) =>
    (blocks ? blocks[i] === 'attention' : i % period === offset) ? null : mixer,
  );
}

export function jambaMoe(c: Fields, i: number): Moe | null {
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
export function falconH1(c: Fields): ArchBody {
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
export function bambaMixers(c: Fields, layers: number): (Mixer | null)[] {
  const attn = c.intList('attn_layer_indices');
  const all = graniteMamba(
    new Fields({ ...c.raw, layer_types: Array.from({ length: layers }, () => 'mamba') }, c.path),
    layers,
  );
  return all.map((m, i) => (attn.includes(i) ? null : m));
}
