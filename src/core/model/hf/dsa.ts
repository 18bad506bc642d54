/**
 * DeepSeek Sparse Attention (DSA): DeepSeek-V3.2 (deepseek_v32) and GLM-5 (glm_moe_dsa) are DeepSeek-V3's MLA + MoE
 * layers with a lightning indexer beside the attention that picks index_topk cached tokens per query. Read from
 * transformers 5.14.1 (modeling_deepseek_v32.py DeepseekV32Indexer, modeling_glm_moe_dsa.py GlmMoeDsaIndexer) and
 * vLLM v0.19.0 (vllm/model_executor/models/deepseek_v2.py DeepseekV32IndexerCache).
 */
import { lin } from './blocks.js';
import type { ArchBody } from './blocks.js';
import { deepseek } from './deepseek.js';
import type { MlaExtra } from './deepseek.js';
import type { Fields } from './fields.js';
import { GLM_MTP } from './families.js';
import { withMtp } from './hybrid.js';

// DeepseekV32Config defaults: index_n_heads=64, index_head_dim=128, index_topk=2048 (configuration_deepseek_v32.py,
// 5.14.1).
const INDEX_HEADS = 64;
const INDEX_HEAD_DIM = 128;
const INDEX_TOPK = 2048;
// vLLM DeepseekV32IndexerCache: fp8 keys with one fp32 scale per quant_block_size=128 elements, cached as uint8
// (head_dim = index_head_dim + index_head_dim // 128 * 4 bytes a token a layer).
const INDEX_QUANT_BLOCK = 128;
const FP32_SCALE_BYTES = 4;

/**
 * One layer's indexer (the attention then reads the index_topk tokens it picks): wq_b (q_lora_rank -> heads x head_dim), wk (hidden -> head_dim), weights_proj
 * (hidden -> heads), all without bias, and k_norm, an nn.LayerNorm(head_dim) with weight and bias; its key cache.
 */
function indexer(c: Fields): MlaExtra {
  const hidden = c.int('hidden_size');
  const heads = c.int('index_n_heads', INDEX_HEADS);
  const dim = c.int('index_head_dim', INDEX_HEAD_DIM);
  return {
    linears: [
      lin('other', c.int('q_lora_rank'), heads * dim, false),
      lin('other', hidden, dim, false),
      lin('other', hidden, heads, false),
    ],
    params: 2 * dim,
    cacheBytes: dim + Math.ceil(dim / INDEX_QUANT_BLOCK) * FP32_SCALE_BYTES,
    topK: c.int('index_topk', INDEX_TOPK),
  };
}

/** DeepSeek-V3.2: every layer runs its own indexer; the MTP layer as DeepSeek-V3's. */
export const deepseekV32 = (c: Fields): ArchBody =>
  withMtp(c, deepseek(true, (x) => indexer(x))(c), GLM_MTP);

/**
 * GLM-5 (GlmMoeDsaAttention): a layer whose indexer_types entry is "shared" reuses the previous full layer's
 * top-k and has no indexer (its absent list: every layer "full", the class default at index_topk_freq 1).
 */
export const glmMoeDsa = (c: Fields): ArchBody => {
  const types = c.strList('indexer_types');
  return withMtp(
    c,
    deepseek(true, (x, i) => (types?.[i] === 'shared' ? null : indexer(x)))(c),
    GLM_MTP,
  );
};
