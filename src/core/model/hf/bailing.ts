/**
 * Ling / Ring (inclusionAI): model_type bailing_moe for both the v1 (BailingMoeForCausalLM: Ling-lite, Ling-plus)
 * and the 2.0 (BailingMoeV2ForCausalLM: Ling/Ring-mini, -flash, -1T) checkpoints, told apart by `architectures`.
 * Remote code in either case (the checkpoint's auto_map); read as SGLang 0.5.23 python/sglang/srt/models/bailing_moe.py
 * (EntryClass BailingMoeForCausalLM, BailingMoeV2ForCausalLM: one class for both) builds it.
 */
import type { LayerGroup } from '../arch.js';
import type { ArchBody } from './blocks.js';
import { fusedModules } from './blocks.js';
import type { Fields } from './fields.js';
import { withMtp } from './hybrid.js';
import { llamaLike, qkNorm } from './llama.js';
import type { Moe } from './llama.js';

/** The class-level defaults a config.json may leave out, per class. */
interface BailingDefaults {
  useBias: boolean;
  qkNorm: boolean;
  expertBias: boolean;
  firstDense: number;
  sharedExperts: number;
}

// inclusionAI/Ling models/configuration_bailing_moe.py (BailingMoeConfig): use_bias=True, num_shared_experts=0,
// first_k_dense_replace=0; no use_qk_norm and no expert bias in the v1 class.
const V1: BailingDefaults = {
  useBias: true,
  qkNorm: false,
  expertBias: false,
  firstDense: 0,
  sharedExperts: 0,
};
// inclusionAI/Ring-V2.5 models/configuration_bailing_moe_v2_5.py (BailingMoeV2_5Config, the v2 class's fields and
// defaults): use_bias=False, use_qk_norm=True, moe_router_enable_expert_bias=True, first_k_dense_replace=1,
// num_shared_experts=1.
const V2: BailingDefaults = {
  useBias: false,
  qkNorm: true,
  expertBias: true,
  firstDense: 1,
  sharedExperts: 1,
};

/** The class the checkpoint names: BailingMoeV2ForCausalLM reads with the 2.0 defaults, anything else as v1. */
const defaultsOf = (architecture: string): BailingDefaults =>
  architecture === 'BailingMoeV2ForCausalLM' ? V2 : V1;

/**
 * bailing_moe.py (SGLang 0.5.23): a sparse layer from first_k_dense_replace on; gate (experts x hidden, no bias),
 * expert_bias (one fp32 per expert) when moe_router_enable_expert_bias, experts without bias (FusedMoE), shared
 * experts of moe_shared_expert_intermediate_size (else moe_intermediate_size) x num_shared_experts.
 */
const bailingMoe =
  (d: BailingDefaults) =>
  (c: Fields, i: number): Moe | null => {
    const experts = c.count('num_experts', 0);
    if (experts === 0 || i < c.count('first_k_dense_replace', d.firstDense)) return null;
    const ffn = c.int('moe_intermediate_size');
    const shared = c.count('num_shared_experts', d.sharedExperts);
    return {
      experts,
      topK: c.int('num_experts_per_tok'),
      ffn,
      routerBias: false,
      expertBias: false,
      sharedFfn: shared * c.int('moe_shared_expert_intermediate_size', ffn),
      sharedGate: false,
      extraParams: c.bool('moe_router_enable_expert_bias', d.expertBias) ? experts : 0,
    };
  };

/**
 * BailingAttention (bailing_moe.py, SGLang 0.5.23): one query_key_value linear of (heads + 2 kv heads) x head_dim with
 * bias use_bias or use_qkv_bias, `dense` output with bias use_bias, query/key RMSNorm(head_dim) when use_qk_norm;
 * BailingMoEMLP gate/up/down with bias use_bias; tie_word_embeddings default False in both classes. MTP layers
 * (num_nextn_predict_layers, bailing_moe_nextn.py) are counted apart, as the other MTP readers do.
 */
export function bailingMoe2(c: Fields, architecture: string): ArchBody {
  const d = defaultsOf(architecture);
  const useBias = (x: Fields) => x.bool('use_bias', d.useBias);
  const body = llamaLike({
    tiedDefault: false,
    qkvBias: (x) => useBias(x) || x.bool('use_qkv_bias', false),
    oBias: useBias,
    mlpBias: useBias,
    extraPerLayer: (x, dims) => (x.bool('use_qk_norm', d.qkNorm) ? qkNorm(x, dims) : 0),
    moe: bailingMoe(d),
  })(c);
  // An MTP layer is sparse whatever first_k_dense_replace says (bailing_moe.py _is_layer_sparse: `is_nextn or ...`).
  const sparse = (groups: LayerGroup[]) =>
    groups.find((g) => g.linears.some((l) => l.role === 'router')) ?? groups[0];
  return withMtp(c, fusedModules(body, { qkv: 'query_key_value' }), { pick: sparse });
}
