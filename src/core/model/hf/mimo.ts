/** MiMo-V2-Flash (Xiaomi): sliding-window and full attention of their own KV widths, attention sinks, DeepSeek-style MoE. */
import type { LayerGroup } from '../arch.js';
import type { ArchBody } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import { layerTypesOf } from './hybrid.js';
import { llamaLike } from './llama.js';
import type { Moe } from './llama.js';

// HF MiMoV2FlashConfig (configuration_mimo_v2_flash.py, transformers 5.14.1; "matching the XiaomiMiMo/MiMo-V2-Flash
// pretrained" geometry): head_dim=192, v_head_dim=128, sliding_window=128, n_routed_experts=256,
// num_experts_per_tok=8, moe_intermediate_size=2048; full attention on layer 0 and every 6th layer, a dense MLP on
// layer 0 and MoE after.
const MIMO = {
  headDim: 192,
  vHeadDim: 128,
  window: 128,
  experts: 256,
  topK: 8,
  ffn: 2048,
  fullEvery: 6,
};

/** Per layer: sliding or full (layer_types, else the checkpoint's hybrid_layer_pattern 1 = SWA, else HF's default). */
function mimoTypes(c: Fields, layers: number): string[] {
  const types = layerTypesOf(c, layers);
  if (types) return types;
  const pattern = c.intList('hybrid_layer_pattern');
  if (pattern.length > 0 && pattern.length !== layers)
    throw new ConfigError(`${c.path}hybrid_layer_pattern`, pattern.length, `${layers} entries`);
  return Array.from({ length: layers }, (_, i) =>
    (pattern.length > 0 ? pattern[i] === 1 : i !== 0 && (i + 1) % MIMO.fullEvery !== 0)
      ? 'sliding_attention'
      : 'full_attention',
  );
}

/** Per layer: MoE or dense (mlp_layer_types, else moe_layer_freq 1 = MoE, else dense first layer only). */
function mimoSparse(c: Fields, layers: number): boolean[] {
  const types = c.strList('mlp_layer_types');
  if (types) return types.map((t) => t === 'sparse');
  const freq = c.intList('moe_layer_freq');
  if (freq.length === layers) return freq.map((f) => f === 1);
  return Array.from({ length: layers }, (_, i) => i > 0);
}

/**
 * MiMoV2FlashMoE (modeling_mimo_v2_flash.py, 5.14.1): DeepSeek-V3's MoE without shared experts: a sigmoid router
 * (weight experts x hidden) with an e_score_correction_bias per expert (a buffer in transformers, a tensor of the
 * checkpoint, as DeepSeek-V3's), routed SwiGLU experts of moe_intermediate_size.
 */
const mimoMoe =
  (sparse: boolean[]) =>
  (c: Fields, i: number): Moe | null => {
    if (!sparse[i]) return null;
    const experts = c.int(['n_routed_experts', 'num_local_experts'], MIMO.experts);
    return {
      experts,
      topK: c.int('num_experts_per_tok', MIMO.topK),
      ffn: c.int('moe_intermediate_size', MIMO.ffn),
      routerBias: false,
      expertBias: false,
      sharedFfn: 0,
      sharedGate: false,
      extraParams: experts,
    };
  };

/**
 * MiMoV2FlashAttention (modeling_mimo_v2_flash.py, 5.14.1): q/k of head_dim, v of v_head_dim (o_proj reads
 * heads x v_head_dim, no bias); a sliding layer has twice num_key_value_heads (the checkpoint's
 * swa_num_key_value_heads) and a sink per head. vLLM mimo_v2_flash.py caches K and V at their own widths.
 */
function reshape(c: Fields, g: LayerGroup): LayerGroup {
  const sliding = g.slidingWindow !== null;
  const full = c.int('num_key_value_heads');
  const kvHeads = sliding ? c.int('swa_num_key_value_heads', 2 * full) : full;
  const vDim = c.int(sliding ? ['swa_v_head_dim', 'v_head_dim'] : 'v_head_dim', MIMO.vHeadDim);
  const linears = g.linears.map((l) => {
    if (l.role === 'k') return { ...l, outFeatures: kvHeads * g.headDim };
    if (l.role === 'v') return { ...l, outFeatures: kvHeads * vDim };
    if (l.role === 'o') return { ...l, inFeatures: g.heads * vDim, bias: false };
    return l;
  });
  const sinks = sliding
    ? c.bool('add_swa_attention_sink_bias', true)
    : c.bool('add_full_attention_sink_bias', false);
  return {
    ...g,
    kvHeads,
    vHeadDim: vDim,
    linears,
    otherParamsPerLayer: g.otherParamsPerLayer + (sinks ? g.heads : 0),
  };
}

/** MiMo-V2-Flash (HF MiMoV2FlashForCausalLM; the hub config's hybrid_layer_pattern, moe_layer_freq and sliding_window_size read too). */
export function mimoV2Flash(c: Fields): ArchBody {
  const layers = c.int('num_hidden_layers');
  const window = c.optInt(['sliding_window', 'sliding_window_size']) ?? MIMO.window;
  const norm = new Fields(
    { ...c.raw, layer_types: mimoTypes(c, layers), sliding_window: window },
    c.path,
  );
  const body = llamaLike({
    tiedDefault: false,
    headDimDefault: MIMO.headDim,
    oBias: () => false,
    moe: mimoMoe(mimoSparse(c, layers)),
  })(norm);
  return { ...body, groups: body.groups.map((g) => reshape(norm, g)) };
}
