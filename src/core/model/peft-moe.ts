/**
 * LoRA on a transformers 5 MoE's fused 3-D experts through PEFT `target_parameters` (lora.ParamWrapper), and
 * PEFT's remap of a v4-style LoRA config on the model types whose MoE layout changed in transformers 5.
 */
import type { LayerGroup, Linear } from './arch.js';

/**
 * Model types whose LoRA config PEFT remaps (peft 0.21.2 utils/transformers_weight_conversion.py
 * `_convert_peft_config_moe`, run by `BaseTuner.inject_adapter` on transformers >= 5): the `_MODEL_TO_CONVERSION_PATTERN`
 * entries of transformers 5.14.1 conversion_mapping.py L42-L68 whose pattern is 'mixtral' or 'qwen2_moe', plus
 * 'mixtral' (PEFT's own addition). 'qwen2_moe' maps to itself nowhere in that table, so Qwen2-MoE is not remapped;
 * gpt-oss (fused since its release) is not either.
 */
export const PEFT_V5_REMAPPED: ReadonlySet<string> = new Set([
  'mixtral',
  'minimax',
  'minimax_m2',
  'afmoe',
  'deepseek_v2',
  'deepseek_v3',
  'deepseek_v32',
  'dots1',
  'ernie4_5_moe',
  'glm4_moe',
  'glm4_moe_lite',
  'glm_moe_dsa',
  'glm4v_moe',
  'longcat_flash',
  'solar_open',
  'mellum',
  'qwen3_moe',
  'qwen3_omni_moe',
  'qwen3_omni_moe_thinker',
  'qwen3_next',
  'hunyuan_v1_moe',
  'flex_olmo',
  'olmoe',
  'exaone_moe',
  'cohere2_moe',
]);

/**
 * Whether PEFT remaps this model type's LoRA targets under the engine: its profile runs the remap
 * (FrameworkProfile.peftV5Remap) and the type is one PEFT converts (PEFT_V5_REMAPPED).
 */
export const peftRemaps = (fw: { peftV5Remap?: true }, modelType: string): boolean =>
  fw.peftV5Remap === true && PEFT_V5_REMAPPED.has(modelType);

/** How the engine adapts fused experts, as the trainable count needs it. */
export interface FusedExpertLora {
  /** PEFT remaps the v4 names on this model type (PEFT_V5_REMAPPED) under an engine that runs the remap. */
  remapped: boolean;
  /** target_modules is 'all-linear'. */
  allLinear: boolean;
}

const MLP_ROLES: ReadonlySet<string> = new Set(['gate', 'up', 'down']);

/**
 * Whether a per-layer linear keeps its own LoRA (lora.Linear) beside fused experts. Remapped: PEFT moves the v4
 * names gate_proj/up_proj/down_proj (w1/w3/w2) and 'all-linear' off target_modules onto target_parameters
 * (`remaining_target_modules`), so dense MLP layers and shared experts, nn.Linear modules of those names, lose
 * theirs (checked: deepseek-v2-lite's shared_experts, test/fixtures/launch-libs/peft-moe-count.json). The router
 * of v5 is a module holding a `weight` parameter, not an nn.Linear: 'all-linear' reaches it only where remapped
 * ("gate" -> "gate.weight", a 2-D ParamWrapper: r x (hidden + experts)); a shared-expert gate (nn.Linear, out 1)
 * is an ordinary 'all-linear' target.
 */
export function keepsLinearLora(g: LayerGroup, l: Linear, f: FusedExpertLora): boolean | null {
  if (l.copies > 1) return false; // the routed experts: counted by fusedExpertLoraParams
  if (f.remapped && MLP_ROLES.has(l.role)) return false;
  if (l.role === 'router' && f.allLinear) return l.outFeatures !== g.experts || f.remapped;
  return null; // as the trainable set says
}

/**
 * LoRA parameters of one layer's fused experts (peft 0.21.2 tuners/lora/layer.py ParamWrapper.update_layer
 * L2413-L2457): a 3-D parameter [E, a, b] gets lora_A nn.Linear(in, r·E) and lora_B nn.Linear(r·E, out), one rank-r
 * pair per expert, E·r·(in + out). gate_up_proj holds gate and up (in = hidden, out = 2·I): adapting either adapts
 * both. Remapped with both gate and up targeted, PEFT sets rank_pattern[".*\.gate_up_proj"] = 2r (and alpha 2α)
 * to match the two v4 adapters it replaces (transformers_weight_conversion.py L466-L478).
 */
export function fusedExpertLoraParams(
  g: LayerGroup,
  roles: ReadonlySet<string>,
  rank: number,
  f: FusedExpertLora,
): number {
  const experts = g.linears.filter((l) => l.copies > 1);
  const gateUp = experts.filter((l) => l.role === 'gate' || l.role === 'up');
  const down = experts.filter((l) => l.role === 'down');
  let n = 0;
  const gu = gateUp.filter((l) => roles.has(l.role));
  if (gu.length > 0 && gateUp[0]) {
    const l = gateUp[0];
    const out = gateUp.reduce((a, x) => a + x.outFeatures, 0);
    const r = gateUpRank(rank, f.remapped, roles.has('gate'), roles.has('up'));
    n += l.copies * r * (l.inFeatures + out);
  }
  for (const l of down)
    if (roles.has(l.role)) n += l.copies * rank * (l.inFeatures + l.outFeatures);
  return n;
}

/** The rank of gate_up_proj's ParamWrapper for the targets (the time model's ΔW einsum). */
export const gateUpRank = (rank: number, remapped: boolean, gate: boolean, up: boolean): number =>
  remapped && gate && up ? 2 * rank : rank;
