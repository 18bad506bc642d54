/** Building blocks every family reader shares: attention and MLP linears, layer groups, norms, heads. */
import type { Arch, LayerGroup, Linear, LinearRole } from '../arch.js';
import { ConfigError, Fields } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Building blocks

export function lin(
  role: LinearRole,
  inFeatures: number,
  outFeatures: number,
  bias: boolean,
  copies = 1,
  activeCopies = copies,
): Linear {
  return { role, inFeatures, outFeatures, bias, copies, activeCopies };
}

export interface AttnDims {
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
}

/** q, k, v, o projections; fused checkpoint modules (qkv_proj, c_attn, query_key_value) are split by role. */
export function attention(
  d: AttnDims,
  qkvBias: boolean,
  oBias: boolean,
  kvIn = d.hidden,
  cross = false,
): Linear[] {
  const q = d.heads * d.headDim;
  const kv = d.kvHeads * d.headDim;
  return [
    lin(cross ? 'cross_q' : 'q', d.hidden, q, qkvBias),
    lin(cross ? 'cross_k' : 'k', kvIn, kv, qkvBias),
    lin(cross ? 'cross_v' : 'v', kvIn, kv, qkvBias),
    lin(cross ? 'cross_o' : 'o', q, d.hidden, oBias),
  ];
}

/**
 * Marks the roles the checkpoint stores in one fused nn.Linear (Linear.module): `qkv` names the fused q/k/v
 * module, `gateUp` the fused gate/up one. PEFT adapts such a module whole (one A/B pair), model/trainable.ts.
 */
export function fusedModules(b: ArchBody, names: { qkv?: string; gateUp?: string }): ArchBody {
  const moduleOf = (role: LinearRole): string | undefined =>
    role === 'q' || role === 'k' || role === 'v'
      ? names.qkv
      : role === 'gate' || role === 'up'
        ? names.gateUp
        : undefined;
  return {
    ...b,
    groups: b.groups.map((g) => ({
      ...g,
      linears: g.linears.map((l) => {
        const module = moduleOf(l.role);
        return module === undefined ? l : { ...l, module };
      }),
    })),
  };
}

/** Gated MLP (gate, up, down) or plain 2-matrix MLP (up = fc_in/fc1/c_fc/dense_h_to_4h, down). */
export function mlp(
  hidden: number,
  ffn: number,
  gated: boolean,
  bias: boolean,
  copies = 1,
  active = copies,
): Linear[] {
  const inner = [
    lin('up', hidden, ffn, bias, copies, active),
    lin('down', ffn, hidden, bias, copies, active),
  ];
  return gated ? [lin('gate', hidden, ffn, bias, copies, active), ...inner] : inner;
}

/** Everything of a LayerGroup but its linears, with the common defaults of a causal decoder layer. */
export type GroupBase = Omit<LayerGroup, 'linears' | 'otherParamsPerLayer' | 'count'>;

export function group(
  base: GroupBase,
  linears: Linear[],
  otherParamsPerLayer: number,
  count = 1,
): LayerGroup {
  return { ...base, count, linears, otherParamsPerLayer };
}

/** Merge identical per-layer groups into runs with counts, keeping first-appearance order. */
export function mergeLayers(layers: LayerGroup[]): LayerGroup[] {
  const merged = new Map<string, LayerGroup>();
  for (const layer of layers) {
    const key = JSON.stringify({ ...layer, count: 0 });
    const seen = merged.get(key);
    if (seen) seen.count += layer.count;
    else merged.set(key, { ...layer });
  }
  return [...merged.values()];
}

/** Norm weight count: RMSNorm has a weight, LayerNorm a weight and a bias. */
export const normSize = (hidden: number, withBias: boolean): number =>
  withBias ? 2 * hidden : hidden;

export function headDimOf(c: Fields, hidden: number, heads: number, fallback?: number): number {
  if (c.has('head_dim')) return c.int('head_dim');
  if (fallback !== undefined) return fallback;
  if (hidden % heads !== 0)
    throw new ConfigError(
      `${c.path}num_attention_heads`,
      heads,
      `a divisor of hidden_size ${hidden}`,
    );
  return hidden / heads;
}

/** Dropout is active in training when any probability in the config (or its class default) is > 0. */
export function hasDropout(c: Fields, defaults: Record<string, number>): boolean {
  const keys = new Set([...DROPOUT_KEYS, ...Object.keys(defaults)]);
  return [...keys].some((k) => c.num(k, defaults[k] ?? 0) > 0);
}
const DROPOUT_KEYS = [
  'hidden_dropout_prob',
  'attention_probs_dropout_prob',
  'dropout_rate',
  'attention_dropout',
  'resid_pdrop',
  'attn_pdrop',
  'hidden_dropout',
  'dropout',
] as const;

/** lm_head weight (plus bias) unless tied to the input embedding. */
export const lmHead = (tied: boolean, vocab: number, hidden: number, bias = false): number =>
  tied ? 0 : vocab * hidden + (bias ? vocab : 0);

/** What a handler returns; the common wrapper adds ids, dtype and quantization. */
export type ArchBody = Omit<
  Arch,
  'id' | 'hfId' | 'modelType' | 'architecture' | 'dtype' | 'quant' | 'measuredParams'
>;
