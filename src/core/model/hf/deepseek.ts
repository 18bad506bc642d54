/** DeepSeek-V2/V3: multi-head latent attention (MLA) and MoE with shared experts. */
import type { LayerGroup, Linear } from '../arch.js';
import { group, hasDropout, lin, mergeLayers, mlp } from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { Fields, MAX_LAYERS } from './fields.js';
import { DEFAULT_MAX_POSITIONS, checkTopK, moeMlp, vocabFields } from './llama.js';
import type { Moe } from './llama.js';

// ---------------------------------------------------------------------------------------------
// DeepSeek-V2/V3: multi-head latent attention (MLA) + MoE with shared experts

/** A layer's extra attention module beside MLA (DeepSeek Sparse Attention's indexer, hf/dsa.ts). */
export interface MlaExtra {
  linears: Linear[];
  params: number;
  /** Bytes per token the module caches in this layer, whatever the KV dtype. */
  cacheBytes: number;
  /** Cached tokens each query attends (LayerGroup.attendTopK). */
  topK: number;
}

// Long on purpose: one flat table of the DeepSeek V2/V3 config fields (MLA widths, MoE layout), read top to bottom.
export function deepseek(v3: boolean, extra?: (c: Fields, layer: number) => MlaExtra | null) {
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
        // DeepSeek-V3's noaux_tc router picks topk_group of n_group expert groups (HF DeepseekV3Config, default 8).
        ...(moe && v3 ? { routerGroups: c.count('n_group', 8) } : {}),
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
      const x = extra?.(c, i) ?? null;
      const layer: LayerGroup = group(
        base,
        [
          ...attn,
          ...(x?.linears ?? []),
          ...(moe ? moeMlp(hidden, moe) : mlp(hidden, ffn, true, false)),
        ],
        attnNorms + routerExtra + (x?.params ?? 0),
      );
      return x ? { ...layer, extraCacheBytes: x.cacheBytes, attendTopK: x.topK } : layer;
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
