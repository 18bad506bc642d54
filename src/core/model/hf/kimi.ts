/** Kimi Linear (Moonshot): Kimi Delta Attention layers beside MLA layers, DeepSeek-style MoE with a shared expert. */
import type { LayerGroup, Linear } from '../arch.js';
import { group, hasDropout, lin, mergeLayers, mlp } from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { ConfigError, Fields, MAX_LAYERS, isObject } from './fields.js';
import { DEFAULT_MAX_POSITIONS, attentionFirst, moeMlp, vocabFields } from './llama.js';
import type { Mixer, Moe } from './llama.js';

// flash-linear-attention chunk_kda_fwd runs chunks of 64 tokens (fla/ops/kda/chunk.py, chunk_size=64).
const KDA_CHUNK = 64;

/**
 * KimiDeltaAttention (vLLM model_executor/layers/kda.py; moonshotai/Kimi-Linear-48B-A3B-Instruct's
 * modeling_kimi.py): q, k, v projections of heads x head_dim, low-rank decay and output gates (f_a / g_a hidden ->
 * head_dim, f_b / g_b head_dim -> heads x head_dim), b_proj hidden -> heads, dt_bias (heads x head_dim), A_log
 * (heads), depthwise short convs over q, k and v (no bias), a gated RMSNorm over head_dim and o_proj, none with bias.
 * Its state per sequence: the three conv windows and a head_dim x head_dim delta-rule state per head (vLLM
 * MambaStateShapeCalculator.kda_state_shape), read as Gated DeltaNet's, whose kernels and cache it shares ("gdn_attention").
 */
function kdaMixer(c: Fields, hidden: number): Mixer {
  const la = c.raw.linear_attn_config;
  if (!isObject(la)) throw new ConfigError(`${c.path}linear_attn_config`, la, 'an object');
  const k = new Fields(la, `${c.path}linear_attn_config.`);
  const heads = k.int('num_heads');
  const dim = k.int('head_dim');
  const kernel = k.int('short_conv_kernel_size');
  const proj = heads * dim;
  return {
    linears: [
      lin('q', hidden, proj, false),
      lin('k', hidden, proj, false),
      lin('v', hidden, proj, false),
      lin('other', hidden, dim, false),
      lin('other', dim, proj, false),
      lin('other', hidden, heads, false),
      lin('other', hidden, dim, false),
      lin('other', dim, proj, false),
      lin('o', proj, hidden, false),
    ],
    params: 3 * proj * kernel + proj + heads + dim,
    state: {
      kind: 'gated-deltanet',
      heads,
      keyDim: dim,
      valueDim: dim,
      convChannels: 3 * proj,
      convKernel: kernel,
      stateBytes: null,
      chunk: KDA_CHUNK,
    },
  };
}

/** KimiMLAAttention (vLLM kimi_linear.py): DeepSeek-V2's MLA with a plain q_proj (q_lora_rank null), no rotary. */
function mla(
  c: Fields,
  hidden: number,
  heads: number,
): { linears: Linear[]; norms: number; width: number } {
  const kvLora = c.int('kv_lora_rank');
  const nope = c.int('qk_nope_head_dim');
  const rope = c.int('qk_rope_head_dim');
  const v = c.int('v_head_dim');
  const qLora = c.optInt('q_lora_rank');
  return {
    linears: [
      ...(qLora === null
        ? [lin('q', hidden, heads * (nope + rope), false)]
        : [lin('q_a', hidden, qLora, false), lin('q_b', qLora, heads * (nope + rope), false)]),
      lin('kv_a', hidden, kvLora + rope, false),
      lin('kv_b', kvLora, heads * (nope + v), false),
      lin('o', heads * v, hidden, false),
    ],
    norms: kvLora + (qLora ?? 0),
    width: kvLora + rope,
  };
}

/**
 * KimiMoE (vLLM kimi_linear.py): from first_k_dense_replace on, every moe_layer_freq-th layer: a router (gate, no
 * bias) with an e_score_correction_bias per expert, num_experts SwiGLU experts of moe_intermediate_size
 * (num_experts_per_token of them a token) and one shared MLP of moe_intermediate_size x num_shared_experts.
 */
function kimiMoe(c: Fields, i: number): Moe | null {
  const experts = c.count('num_experts', 0);
  if (experts === 0 || i < c.count('first_k_dense_replace', 0) || i % c.int('moe_layer_freq', 1))
    return null;
  const ffn = c.int('moe_intermediate_size');
  return {
    experts,
    topK: c.int('num_experts_per_token'),
    topKKey: 'num_experts_per_token',
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn * c.count('num_shared_experts', 0),
    sharedGate: false,
    extraParams: experts,
  };
}

/**
 * Kimi Linear (KimiLinearForCausalLM, trust_remote_code; vLLM kimi_linear.py): layer i (0-based) is a KDA layer when
 * i + 1 is in linear_attn_config.kda_layers (1-based, as KimiLinearConfig.is_kda_layer reads it), else MLA; each
 * layer has an input and a post-attention RMSNorm and a dense MLP (intermediate_size) or the MoE.
 */
export function kimiLinear(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const layers = c.int('num_hidden_layers', undefined, MAX_LAYERS);
  const la = isObject(c.raw.linear_attn_config) ? c.raw.linear_attn_config : {};
  const kdaLayers = new Fields(la).intList('kda_layers');
  const kda = kdaMixer(c, hidden);
  const m = mla(c, hidden, heads);
  const dropout = hasDropout(c, {});
  const perLayer = Array.from({ length: layers }, (_, i): LayerGroup => {
    const mixer = kdaLayers.includes(i + 1) ? kda : null;
    const moe = kimiMoe(c, i);
    const ffn = moe ? moe.ffn : c.int('intermediate_size');
    const base: GroupBase = {
      name: 'decoder',
      hidden,
      heads: mixer ? mixer.state.heads : heads,
      kvHeads: mixer ? mixer.state.heads : heads,
      headDim: mixer ? mixer.state.keyDim : c.int('qk_nope_head_dim') + c.int('qk_rope_head_dim'),
      vHeadDim: mixer ? mixer.state.valueDim : c.int('v_head_dim'),
      ffn,
      gated: true,
      experts: moe ? moe.experts : 1,
      topK: moe ? moe.topK : 1,
      norm: 'rms',
      normsPerLayer: 2,
      parallelResidual: false,
      dropout,
      causal: true,
      crossAttention: false,
      slidingWindow: null,
      mlaCacheWidth: mixer ? null : m.width,
    };
    const layer = group(
      base,
      [
        ...(mixer ? mixer.linears : m.linears),
        ...(moe ? moeMlp(hidden, moe) : mlp(hidden, ffn, true, false)),
      ],
      2 * hidden + (mixer ? mixer.params : m.norms) + (moe?.extraParams ?? 0),
    );
    return mixer ? { ...layer, recurrent: mixer.state } : layer;
  });
  return {
    kind: 'causal-lm',
    groups: attentionFirst(mergeLayers(perLayer)),
    hidden,
    ...vocabFields(c.int('vocab_size'), hidden, c.bool('tie_word_embeddings', false)),
    otherParams: hidden,
    maxPositions: c.int(['max_position_embeddings', 'model_max_length'], DEFAULT_MAX_POSITIONS),
  };
}
