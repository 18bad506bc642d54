/** Recent decoder families, each read from its transformers modeling file. */
import type { AttnDims } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import type { MtpLayout } from './hybrid.js';
import { attentionBias, mixtralMoe, patternSliding, qkNormWhen } from './llama.js';
import type { LlamaFlavor, Moe } from './llama.js';

// ---------------------------------------------------------------------------------------------
// Today's families, each read from its transformers modeling file (huggingface/transformers main,
// the commit named at each handler): GLM, OLMo 2/3, SmolLM3, Granite (+MoE), Cohere2, StarCoder2, EXAONE 4,
// Seed-OSS, ERNIE 4.5 (+MoE), Hunyuan V1 (+MoE), OLMoE, PhiMoE, MiniMax-M2

/** q_norm / k_norm over all heads at once (Olmo2Attention, OlmoeAttention, MiniMaxM2Attention = FlexOlmoAttention). */
export const qkNormFull = (_c: Fields, d: AttnDims) => (d.heads + d.kvHeads) * d.headDim;

// HF GlmConfig / Glm4Config (configuration_glm.py / configuration_glm4.py) default head_dim=128,
// attention_bias=True; GlmAttention (modeling_glm.py): q/k/v bias attention_bias, o_proj bias=False; Glm4DecoderLayer
// (modular_glm4.py @08c53278) adds post_self_attn_layernorm and post_mlp_layernorm (4 RMSNorms per layer).
const GLM_HEAD_DIM = 128;
export const glmFlavor = (normsPerLayer: number): LlamaFlavor => ({
  tiedDefault: false,
  headDimDefault: GLM_HEAD_DIM,
  qkvBias: attentionBias(true),
  oBias: () => false,
  normsPerLayer,
});

// HF Glm4MoeConfig (configuration_glm4_moe.py @c7ec229a) defaults: n_routed_experts=128, n_shared_experts=1,
// moe_intermediate_size=1408, num_experts_per_tok=8, first_k_dense_replace=1, use_qk_norm=False, attention_bias=False,
// n_group=1.
const GLM4_MOE = { experts: 128, shared: 1, ffn: 1408, topK: 8, denseUntil: 1, groups: 1 };

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
    routerGroups: c.count('n_group', GLM4_MOE.groups),
  };
}

export const glm4MoeFlavor: LlamaFlavor = {
  tiedDefault: false,
  headDimDefault: GLM_HEAD_DIM,
  qkvBias: attentionBias(false),
  oBias: () => false,
  extraPerLayer: qkNormWhen('use_qk_norm', false),
  moe: glm4Moe,
};

/**
 * GLM-4.5 / DeepSeek-V3 checkpoints store each MTP layer with its own embed_tokens and shared_head.head
 * (vLLM deepseek_mtp.py / glm4_moe_mtp.py load model.layers.<n>.embed_tokens and shared_head.head), and its
 * decoder layer is an MoE layer (layer index >= first_k_dense_replace).
 */
export const GLM_MTP: MtpLayout = {
  pick: (groups) => groups.find((g) => g.experts > 1),
  ownVocab: true,
};

// HF Olmo3Config default layer_types: sliding_attention except every 4th layer.
export const OLMO3_PATTERN = 4;
// HF Cohere2Config default sliding_window_pattern=4 (3 sliding : 1 global).
export const COHERE2_PATTERN = 4;

/**
 * EXAONE 4 (HF Exaone4Config): sliding_window_pattern is a string of L (local) and G (global) repeated over the
 * layers (e.g. "LLLG"), or an int like Gemma's; layer_types wins when present.
 */
export function exaoneSliding(c: Fields, i: number): boolean {
  const p = c.raw.sliding_window_pattern;
  if (typeof p === 'string' && p.length > 0) return p[i % p.length] === 'L';
  return patternSliding(OLMO3_PATTERN)(c, i);
}

// HF GraniteMoeConfig defaults: num_local_experts=8, num_experts_per_tok=2 (configuration_granitemoe.py).
const GRANITEMOE = { experts: 8, topK: 2 };

/** GraniteMoe(Shared)MoE: router Linear(hidden, experts, bias=False), SwiGLU experts (input_linear fused gate/up,
 * output_linear) of intermediate_size; GraniteMoeShared adds a shared SwiGLU MLP of shared_intermediate_size. */
export const graniteMoeBlock =
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
export function ernieMoe(c: Fields, i: number): Moe | null {
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
export function hunyuanMoe(c: Fields, i: number): Moe {
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
export const olmoeMoe = (c: Fields): Moe => ({
  experts: c.int('num_experts', OLMOE.experts),
  topK: c.int('num_experts_per_tok', OLMOE.topK),
  ffn: c.int('intermediate_size'),
  routerBias: false,
  expertBias: false,
  sharedFfn: 0,
  sharedGate: false,
});

/** MiniMax-M2 (modular_minimax_m2.py @ea9df1d3): Mixtral experts, a sigmoid router with an e_score_correction_bias. */
export const minimaxM2Moe = (c: Fields): Moe => {
  const m = mixtralMoe(c);
  return { ...m, extraParams: m.experts };
};

// HF AfmoeConfig defaults (configuration_afmoe.py, transformers 5.14.1): num_dense_layers=1, num_shared_experts=2.
const AFMOE = { dense: 1, shared: 2 };

/**
 * AfmoeMoE (modeling_afmoe.py, 5.14.1): from layer num_dense_layers on, a router (gate, no bias) with an expert_bias
 * parameter of num_experts, routed SwiGLU experts of moe_intermediate_size and one shared MLP of
 * moe_intermediate_size x num_shared_experts.
 */
export function afmoeMoe(c: Fields, i: number): Moe | null {
  if (i < c.count('num_dense_layers', AFMOE.dense)) return null;
  const experts = c.int('num_experts');
  const ffn = c.int('moe_intermediate_size');
  return {
    experts,
    topK: c.int('num_experts_per_tok'),
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn * c.count('num_shared_experts', AFMOE.shared),
    sharedGate: false,
    extraParams: experts,
  };
}
