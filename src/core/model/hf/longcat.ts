/** LongCat-Flash (Meituan): two MLA sublayers per layer, dense MLPs, and a shortcut MoE with zero-computation experts. */
import type { LayerGroup, Linear } from '../arch.js';
import { group, hasDropout, lin, mlp } from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { ConfigError, Fields, MAX_LAYERS } from './fields.js';
import { DEFAULT_MAX_POSITIONS, vocabFields } from './llama.js';

// HF LongcatFlashConfig (configuration_longcat_flash.py, transformers 5.14.1) defaults, LongCat-Flash's geometry:
// num_layers=28, ffn_hidden_size=12288, q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128,
// qk_rope_head_dim=64, v_head_dim=128, moe_topk=12, n_routed_experts=512, zero_expert_num=256,
// expert_ffn_hidden_size=2048.
const LONGCAT = {
  ffn: 12288,
  qLora: 1536,
  kvLora: 512,
  nope: 128,
  rope: 64,
  v: 128,
  topK: 12,
  experts: 512,
  zero: 256,
  expertFfn: 2048,
};

/**
 * LongcatFlashMLA (modeling_longcat_flash.py, 5.14.1): DeepSeek-V2's MLA (q_a / q_b with q_a_layernorm, kv_a with
 * kv_a_layernorm, kv_b, o; q_a, kv_a and o with bias attention_bias); it caches kv_lora_rank + qk_rope_head_dim
 * per token (vLLM longcat_flash.py builds DeepseekV2MLAAttention).
 */
function mla(c: Fields, hidden: number, heads: number): { linears: Linear[]; norms: number } {
  // q_lora_rank null (present, no value) is a plain q_proj; absent is the class default.
  const qLora = 'q_lora_rank' in c.raw ? c.optInt('q_lora_rank') : LONGCAT.qLora;
  const kvLora = c.int('kv_lora_rank', LONGCAT.kvLora);
  const qk = c.int('qk_nope_head_dim', LONGCAT.nope) + c.int('qk_rope_head_dim', LONGCAT.rope);
  const v = c.int('v_head_dim', LONGCAT.v);
  const bias = c.bool('attention_bias', false);
  return {
    linears: [
      ...(qLora === null
        ? [lin('q', hidden, heads * qk, false)]
        : [lin('q_a', hidden, qLora, bias), lin('q_b', qLora, heads * qk, false)]),
      lin('kv_a', hidden, kvLora + c.int('qk_rope_head_dim', LONGCAT.rope), bias),
      lin('kv_b', kvLora, heads * (c.int('qk_nope_head_dim', LONGCAT.nope) + v), false),
      lin('o', heads * v, hidden, bias),
    ],
    norms: (qLora ?? 0) + kvLora,
  };
}

/**
 * LongcatFlashMoE: a router (classifier Linear(hidden, n_routed_experts + zero_expert_num), bias router_bias, and an
 * e_score_correction_bias per slot, a tensor of the checkpoint as DeepSeek-V3's) over the routed SwiGLU experts of
 * expert_ffn_hidden_size and zero_expert_num identity experts that hold no weights and run no GEMM. The moe_topk
 * slots a token picks are read as spread over all the slots, so topK x routed / (routed + zero) of them are real
 * experts on average (8 of 12 at the defaults: LongCat-Flash's card states ~27B activated of 560B, 18.6B-31.3B).
 * transformers 5.14.1 also allocates gate_up_proj rows for the zero experts (LongcatFlashExperts total_experts),
 * which no checkpoint fills; they are left out here.
 */
function shortcutMoe(
  c: Fields,
  hidden: number,
): { linears: Linear[]; experts: number; topK: number; ffn: number; slots: number } {
  const experts = c.int('n_routed_experts', LONGCAT.experts);
  const zero = c.count('zero_expert_num', LONGCAT.zero);
  const slots = experts + zero;
  const picks = c.int(['moe_topk', 'num_experts_per_tok'], LONGCAT.topK);
  if (picks > slots) throw new ConfigError(`${c.path}moe_topk`, picks, `at most ${slots} experts`);
  const active = Math.max(1, Math.round((picks * experts) / slots));
  const ffn = c.int('expert_ffn_hidden_size', LONGCAT.expertFfn);
  return {
    linears: [
      lin('router', hidden, slots, c.bool('router_bias', false)),
      ...mlp(hidden, ffn, true, false, experts, active),
    ],
    experts,
    topK: active,
    ffn,
    slots,
  };
}

/**
 * LongcatFlashDecoderLayer (5.14.1): per layer, MLA + dense SwiGLU MLP (ffn_hidden_size) twice, each with its input
 * and post-attention RMSNorm, and the shortcut MoE reading the first sublayer's normed output. Read as num_layers
 * sublayers of MLA + MLP + MoE (the dense MLP beside the experts as a shared expert runs) and num_layers of MLA +
 * MLP: 2 x num_layers attention layers, each caching its latent (num_hidden_layers = 2 x num_layers).
 */
export function longcatFlash(c: Fields): ArchBody {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const layers = c.int(['num_layers'], undefined, MAX_LAYERS);
  const a = mla(c, hidden, heads);
  const moe = shortcutMoe(c, hidden);
  const ffn = c.int('ffn_hidden_size', LONGCAT.ffn);
  const base: GroupBase = {
    name: 'decoder',
    hidden,
    heads,
    kvHeads: heads,
    headDim: c.int('qk_nope_head_dim', LONGCAT.nope) + c.int('qk_rope_head_dim', LONGCAT.rope),
    vHeadDim: c.int('v_head_dim', LONGCAT.v),
    ffn,
    gated: true,
    experts: 1,
    topK: 1,
    norm: 'rms',
    normsPerLayer: 2,
    parallelResidual: false,
    dropout: hasDropout(c, {}),
    causal: true,
    crossAttention: false,
    slidingWindow: null,
    mlaCacheWidth: c.int('kv_lora_rank', LONGCAT.kvLora) + c.int('qk_rope_head_dim', LONGCAT.rope),
  };
  const other = a.norms + 2 * hidden;
  const withMoe: LayerGroup = group(
    { ...base, ffn: moe.ffn, experts: moe.experts, topK: moe.topK },
    [...a.linears, ...moe.linears, ...mlp(hidden, ffn, true, false)],
    other + moe.slots,
    layers,
  );
  const plain = group(base, [...a.linears, ...mlp(hidden, ffn, true, false)], other, layers);
  return {
    kind: 'causal-lm',
    groups: [withMoe, plain],
    hidden,
    ...vocabFields(c.int('vocab_size'), hidden, c.bool('tie_word_embeddings', false)),
    otherParams: hidden,
    maxPositions: c.int('max_position_embeddings', DEFAULT_MAX_POSITIONS),
  };
}
