/**
 * Step3 (StepFun): the text model of the step3_vl checkpoint (Step3TextForCausalLM, model_type step3_text), read as
 * vLLM step3_text.py builds it: Multi-matrix Factorized Attention (one KV head of head_dim shared by every query
 * head, the query through a share_q_dim bottleneck) and a MoE with one shared expert on the moe_layers_enum layers.
 */
import type { LayerGroup } from '../arch.js';
import type { ArchBody } from './blocks.js';
import { lin } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import { llamaLike } from './llama.js';
import type { Moe } from './llama.js';
import { textOf } from './multimodal.js';

// vLLM vllm/transformers_utils/configs/step3_vl.py Step3TextConfig defaults (the stepfun-ai/step3 geometry):
// hidden 7168, 61 layers, 64 heads, head_dim 256, share_q_dim 2048, dense ffn 18432, 48 experts of 5120 top 3,
// share_expert_dim 5120, vocab 128815, max_position_embedding 65536; MoE on layers 4..59.
const STEP3 = {
  hidden: 7168,
  layers: 61,
  heads: 64,
  headDim: 256,
  shareQ: 2048,
  ffn: 18432,
  experts: 48,
  topK: 3,
  expertFfn: 5120,
  sharedFfn: 5120,
  vocab: 128815,
  positions: 65536,
  firstMoe: 4,
  lastMoe: 59,
};

/** The MoE layer indices: moe_layers_enum as the checkpoint writes it ("4,5,...") or a list, else the class default. */
function moeLayers(c: Fields): Set<number> {
  const raw = c.raw.moe_layers_enum;
  if (raw === undefined || raw === null) {
    const n = STEP3.lastMoe - STEP3.firstMoe + 1;
    return new Set(Array.from({ length: n }, (_, i) => STEP3.firstMoe + i));
  }
  const items = typeof raw === 'string' ? raw.split(',').filter((s) => s.trim() !== '') : raw;
  if (!Array.isArray(items))
    throw new ConfigError(`${c.path}moe_layers_enum`, raw, 'layer indices');
  const idx = items.map((x) => Number(x));
  if (idx.some((x) => !Number.isInteger(x) || x < 0))
    throw new ConfigError(`${c.path}moe_layers_enum`, raw, 'non-negative integer layer indices');
  return new Set(idx);
}

/**
 * Step3TextAttention (vLLM step3_text.py): q_proj hidden -> share_q_dim, inter_norm RMSNorm(share_q_dim), wq
 * share_q_dim -> heads x head_dim, k_proj / v_proj hidden -> head_dim (num_kv_heads must be 1), o_proj
 * heads x head_dim -> hidden, none with bias.
 */
function mfa(c: Fields, g: LayerGroup): LayerGroup {
  const shareQ = c.int('share_q_dim', STEP3.shareQ);
  const linears = g.linears.flatMap((l) =>
    l.role === 'q'
      ? [lin('q_a', l.inFeatures, shareQ, false), lin('q_b', shareQ, l.outFeatures, false)]
      : [l],
  );
  return { ...g, linears, otherParamsPerLayer: g.otherParamsPerLayer + shareQ };
}

/** FusedMoEBlock (gate hidden -> experts, no bias; experts of moe_intermediate_size) and share_expert (share_expert_dim). */
const step3Moe =
  (layers: Set<number>) =>
  (c: Fields, i: number): Moe | null =>
    layers.has(i)
      ? {
          experts: c.int('moe_num_experts', STEP3.experts),
          topK: c.int('moe_top_k', STEP3.topK),
          topKKey: 'moe_top_k',
          ffn: c.int('moe_intermediate_size', STEP3.expertFfn),
          routerBias: false,
          expertBias: false,
          sharedFfn: c.int('share_expert_dim', STEP3.sharedFfn),
          sharedGate: false,
        }
      : null;

/** The Step3 text model; the class defaults fill what a text_config leaves out. */
export function step3Text(c: Fields): ArchBody {
  const t = new Fields(
    {
      hidden_size: STEP3.hidden,
      num_hidden_layers: STEP3.layers,
      num_attention_heads: STEP3.heads,
      head_dim: STEP3.headDim,
      intermediate_size: STEP3.ffn,
      vocab_size: STEP3.vocab,
      max_position_embeddings: c.int('max_position_embedding', STEP3.positions),
      ...c.raw,
      // vLLM Step3TextDecoderLayer passes num_kv_heads=1 whatever num_attention_groups says.
      num_key_value_heads: 1,
    },
    c.path,
  );
  // Step3TextForCausalLM: a separate lm_head (ParallelLMHead), no tie.
  const body = llamaLike({ tiedDefault: false, moe: step3Moe(moeLayers(t)) })(t);
  return { ...body, groups: body.groups.map((g) => mfa(t, g)) };
}

/**
 * step3_vl (Step3VLConfig, vLLM / SGLang 0.5.23 configs/step3_vl.py): the Step3 text model under text_config (its
 * model_type absent or step3_text; a text_config naming another model_type the readers know is read by that reader).
 * The vision tower and its projector (Step3VisionTransformer, vit_downsampler / vit_downsampler2 convolutions,
 * vit_large_projector) are not read: they are named in the assumptions and add no parameters or image tokens.
 */
export function step3Vl(textBuild: (modelType: string, t: Fields) => ArchBody) {
  return (c: Fields): ArchBody => {
    const t = c.has('text_config') ? textOf(c) : new Fields({}, `${c.path}text_config.`);
    const kind = t.raw.model_type;
    const body =
      kind === undefined || kind === 'step3_text' ? step3Text(t) : textBuild(String(kind), t);
    return {
      ...body,
      assumptions: [
        'vision_config: the Step3 vision tower and projector are not read (no tower parameters, no image tokens)',
        ...(body.assumptions ?? []),
      ],
    };
  };
}
