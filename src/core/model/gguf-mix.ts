/**
 * llama.cpp's low-bit GGUF mixes (Q2_K, Q3_K_M, IQ1_S, IQ2_XXS, IQ2_M, IQ3_XXS, IQ3_M): the ggml type
 * llama_model_quantize gives each tensor, and the bytes a weight of each ggml type takes.
 * Source: ggml-org/llama.cpp@007dbbf3fd17eefe9b47fee45f48f7ba5e62b714 src/llama-quant.cpp
 * (llama_ftype_get_default_type, llama_tensor_get_type_impl, tensor_type_fallback) and ggml/src/ggml-common.h.
 */
import type { LinearRole } from './arch.js';
import { LOW_BIT_GGUF } from '../../schema/estimate.js';

/** The ggml block types the low-bit mixes use. */
export type GgmlType =
  | 'q2_K'
  | 'q3_K'
  | 'q4_K'
  | 'q5_K'
  | 'q6_K'
  | 'iq1_s'
  | 'iq2_xxs'
  | 'iq2_s'
  | 'iq3_xxs'
  | 'iq3_s'
  | 'q4_0'
  | 'iq4_nl'
  | 'q5_0'
  | 'q5_1'
  | 'q8_0';

/** Bytes of one block and the weights it holds (ggml/src/ggml-common.h, QK_K = 256, QK4_0 = QK8_0 = 32). */
export const GGML_BLOCK: Readonly<Record<GgmlType, { bytes: number; weights: number }>> = {
  q2_K: { bytes: 84, weights: 256 }, // scales[16], qs[64], fp16 d and dmin
  q3_K: { bytes: 110, weights: 256 }, // hmask[32], qs[64], scales[12], fp16 d
  q4_K: { bytes: 144, weights: 256 }, // fp16 d and dmin, scales[12], qs[128]
  q5_K: { bytes: 176, weights: 256 }, // fp16 d and dmin, scales[12], qh[32], qs[128]
  q6_K: { bytes: 210, weights: 256 }, // ql[128], qh[64], scales[16], fp16 d
  iq1_s: { bytes: 50, weights: 256 }, // fp16 d, qs[32], uint16 qh[8]
  iq2_xxs: { bytes: 66, weights: 256 }, // fp16 d, uint16 qs[32]
  iq2_s: { bytes: 82, weights: 256 }, // fp16 d, qs[64], qh[8], scales[8]
  iq3_xxs: { bytes: 98, weights: 256 }, // fp16 d, qs[96]
  iq3_s: { bytes: 110, weights: 256 }, // fp16 d, qs[64], qh[8], signs[32], scales[4]
  q4_0: { bytes: 18, weights: 32 }, // fp16 d, qs[16]
  iq4_nl: { bytes: 18, weights: 32 }, // fp16 d, qs[16]
  q5_0: { bytes: 22, weights: 32 }, // fp16 d, qh[4], qs[16]
  q5_1: { bytes: 24, weights: 32 }, // fp16 d and m, qh[4], qs[16]
  q8_0: { bytes: 34, weights: 32 }, // fp16 d, qs[32]
};

/** Bytes per weight of a ggml block type. */
export const ggmlBytes = (t: GgmlType): number => GGML_BLOCK[t].bytes / GGML_BLOCK[t].weights;

/** tensor_type_fallback: the type a tensor whose rows are not a multiple of the block width takes instead. */
const FALLBACK: Partial<Record<GgmlType, GgmlType>> = {
  iq1_s: 'iq4_nl',
  iq2_xxs: 'iq4_nl',
  iq2_s: 'iq4_nl',
  iq3_xxs: 'iq4_nl',
  iq3_s: 'iq4_nl',
  q2_K: 'q4_0',
  q3_K: 'q4_0',
  q4_K: 'q5_0',
  q5_K: 'q5_1',
  q6_K: 'q8_0',
};

/** The low-bit llama-quantize file types vramplan estimates (schema/estimate.ts). */
export { LOW_BIT_GGUF };
export type LowBitGguf = (typeof LOW_BIT_GGUF)[number];
export const isLowBitGguf = (w: string): w is LowBitGguf =>
  (LOW_BIT_GGUF as readonly string[]).includes(w);

/** llama_ftype_get_default_type: the type every tensor the mix does not raise takes. */
const DEFAULT_TYPE: Record<LowBitGguf, GgmlType> = {
  q2_k: 'q2_K',
  q3_k_m: 'q3_K',
  iq1_s: 'iq1_s',
  iq2_xxs: 'iq2_xxs',
  iq2_m: 'iq2_s',
  iq3_xxs: 'iq3_xxs',
  iq3_m: 'iq3_s',
};

/** The mixes llama_tensor_get_type_impl treats as one family (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M). */
const IQ12 = new Set<LowBitGguf>(['iq1_s', 'iq2_xxs', 'iq2_m']);

/** tensor_get_category: what llama-quant.cpp matches in a tensor's name (attn_kv_b counts as attn_v). */
type Category = 'attn_v' | 'attn_k' | 'attn_q' | 'attn_output' | 'ffn_down' | 'other';
const CATEGORY: Partial<Record<LinearRole, Category>> = {
  v: 'attn_v',
  kv_b: 'attn_v',
  k: 'attn_k',
  q: 'attn_q',
  o: 'attn_output',
  down: 'ffn_down',
};

/** The model facts the mix reads: query heads per KV head (n_gqa) and routed experts (n_expert). */
export interface MixModel {
  gqa: number;
  experts: number;
}

/** Shares of a tensor's weights by type. */
type Parts = readonly (readonly [share: number, type: GgmlType])[];

/** IQ1_S / IQ2_XXS / IQ2_M: attn_v to Q4_K (GQA >= 4 or 4+ experts), the first eighth of ffn_down raised. */
function iq12Parts(w: LowBitGguf, c: Category, m: MixModel): Parts {
  const base = DEFAULT_TYPE[w];
  const up: GgmlType = w === 'iq2_m' ? 'iq3_s' : 'q2_K';
  if (c === 'attn_v') return [[1, m.gqa >= 4 || m.experts >= 4 ? 'q4_K' : up]];
  if (c === 'attn_k' && m.experts === 8) return [[1, 'q4_K']];
  // `qs.i_ffn_down < qs.n_ffn_down/8`: the first eighth of the ffn_down tensors, priced as an eighth of each.
  if (c === 'ffn_down')
    return [
      [1 / 8, up],
      [7 / 8, base],
    ];
  if (c === 'attn_output')
    return [
      [1, m.experts === 8 ? 'q5_K' : w === 'iq1_s' ? 'iq2_xxs' : w === 'iq2_m' ? 'iq3_s' : base],
    ];
  return [[1, base]];
}

/**
 * Q2_K / Q3_K_M / IQ3_XXS / IQ3_M. Not modelled: Q3_K_M's first two attn_v at Q5_K (Q4_K here), the 70B rule that
 * raises a Q3_K/Q4_K attn_v to Q5_K, and IQ3_XXS without an imatrix (llama-quantize's IQ3_XXS is made with one).
 */
function k3Parts(w: LowBitGguf, c: Category, m: MixModel): Parts {
  const base = DEFAULT_TYPE[w];
  const e8 = m.experts === 8;
  switch (c) {
    case 'attn_v':
      if (e8) return [[1, 'q8_0']];
      if (w === 'q2_k') return [[1, m.gqa >= 4 ? 'q4_K' : 'q3_K']];
      if (w === 'iq3_xxs') return [[1, m.gqa >= 4 ? 'q4_K' : 'iq3_xxs']];
      return [[1, 'q4_K']];
    case 'attn_k':
      return [[1, e8 ? 'q8_0' : w === 'iq3_xxs' ? 'iq2_s' : base]];
    case 'attn_q':
      return [[1, w === 'iq3_xxs' ? 'iq2_s' : base]];
    case 'ffn_down':
      if (w === 'q2_k') return [[1, 'q3_K']];
      // Q3_K_M: the first sixteenth at Q5_K, the rest Q4_K (every arch but Falcon).
      if (w === 'q3_k_m')
        return [
          [1 / 16, 'q5_K'],
          [15 / 16, 'q4_K'],
        ];
      // IQ3_M: Q4_K for the first eighth, and for 8 experts every use_more_bits layer (half of them).
      if (w === 'iq3_m') {
        const s = e8 ? 1 / 2 : 1 / 8;
        return [
          [s, 'q4_K'],
          [1 - s, base],
        ];
      }
      return [[1, base]];
    case 'attn_output':
      if (e8) return [[1, 'q5_K']];
      return [[1, w === 'q2_k' ? 'q3_K' : w === 'iq3_xxs' ? 'iq3_s' : 'q4_K']];
    default:
      return [[1, base]];
  }
}

/** Bytes per weight of `parts` in tensors whose rows are `width` long (tensor_type_fallback off the block width). */
function partsBytes(parts: Parts, width: number): number {
  let b = 0;
  for (const [share, t] of parts) {
    const fits = width % GGML_BLOCK[t].weights === 0;
    b += share * ggmlBytes(fits ? t : (FALLBACK[t] ?? t));
  }
  return b;
}

/** Bytes per weight of a linear of `role` with rows `width` long in the low-bit mix `w`. */
export function lowBitLinearBytes(
  w: LowBitGguf,
  role: LinearRole,
  width: number,
  m: MixModel,
): number {
  const c = CATEGORY[role] ?? 'other';
  return partsBytes(IQ12.has(w) ? iq12Parts(w, c, m) : k3Parts(w, c, m), width);
}

/**
 * Bytes per weight of the output head (`head`) or the token embedding in the low-bit mix `w`: output.weight at Q5_K
 * in the IQ1/IQ2 mixes and IQ3_XXS, Q6_K in the others, Q8_0 where its rows are off the block width; token_embd at
 * Q2_K (IQ1_S, IQ2_XXS), IQ3_S (IQ2_M, IQ3_XXS) or the default type.
 */
export function lowBitEndBytes(w: LowBitGguf, width: number, head: boolean): number {
  const base = DEFAULT_TYPE[w];
  if (head) {
    if (width % GGML_BLOCK[base].weights !== 0) return ggmlBytes('q8_0');
    return ggmlBytes(IQ12.has(w) || w === 'iq3_xxs' ? 'q5_K' : 'q6_K');
  }
  const t: GgmlType =
    w === 'iq1_s' || w === 'iq2_xxs' ? 'q2_K' : w === 'iq2_m' || w === 'iq3_xxs' ? 'iq3_s' : base;
  return partsBytes([[1, t]], width);
}
