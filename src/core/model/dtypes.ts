/** Bytes per element of each storage format, quantization constants included separately. */
import type { FloatDtype, GgufDtype, StateDtype, WeightDtype } from '../../schema/estimate.js';
import { isLowBitGguf, lowBitEndBytes } from './gguf-mix.js';

export const FLOAT_BYTES: Record<FloatDtype | StateDtype, number> = { fp32: 4, fp16: 2, bf16: 2 };

/** The 4-bit float formats of bitsandbytes (NF4, FP4): blockwise, dequantized whole per matmul. */
export const isFourBitFloat = (w: WeightDtype): boolean => w === 'nf4' || w === 'fp4';

/** Weight dtypes that store one float per parameter (trainable by full fine-tuning). */
export const isFloatDtype = (w: WeightDtype): w is FloatDtype =>
  w === 'fp32' || w === 'fp16' || w === 'bf16';

// QLoRA §3 (arXiv:2305.14314): NF4/FP4 blocks of 64 weights with one fp32 absmax each.
const NF4_BLOCK = 64;
// Double quantization: absmax quantized to 8 bit in blocks of 256 with one fp32 constant (QLoRA §3).
const DQ_BLOCK = 256;
// GPTQ/AWQ group-wise int4: one fp16 scale and a packed 4-bit zero point per group of 128 (AutoGPTQ default).
export const INT4_GROUP = 128;

/** Bytes per weight element for the packed values only. */
export function valueBytes(w: WeightDtype): number {
  switch (w) {
    case 'fp32':
      return 4;
    case 'fp16':
    case 'bf16':
      return 2;
    case 'fp8':
    case 'int8':
      return 1;
    case 'nf4':
    case 'fp4':
    case 'int4':
    case 'mxfp4':
    case 'nvfp4':
      return 0.5;
    default:
      // GGUF: the whole file's bits per weight (scales and the k-quant mix included): GGUF_BPW.
      return GGUF_BPW[w] / 8;
  }
}

/**
 * Bits per weight of each GGUF type over a whole Llama-3.1-8B file (embeddings, output and the k-quant mix of
 * attn_v / ffn_down included): llama.cpp tools/quantize/README.md "Quantization" table (commit 311c2c9f).
 */
export const GGUF_BPW: Record<GgufDtype, number> = {
  // Q4_0 (not in that table): block_q4_0 18 B per 32 weights (ggml/src/ggml-common.h), the output head Q6_K
  // (src/llama-quant.cpp llama_tensor_get_type_impl: output.weight to Q6_K unless Q8_0; both at
  // ggml-org/llama.cpp@007dbbf3fd17eefe9b47fee45f48f7ba5e62b714), the norms f32, over Llama-3.1-8B's tensors;
  // the same count for Llama-2-7B gives 3.562 GiB, llama-bench's "llama 7B Q4_0 3.56 GiB" (ggml-org/llama.cpp#10435).
  q4_0: 4.6358,
  q4_k_m: 4.8944,
  q5_k_m: 5.7036,
  q6_k: 6.5633,
  q8_0: 8.5008,
  // The low-bit mixes, same table: a whole-file figure; memory prices each tensor by its type (gguf-mix.ts).
  q2_k: 3.1593,
  q3_k_m: 3.996,
  iq1_s: 2.0042,
  iq2_xxs: 2.3824,
  iq2_m: 2.9294,
  iq3_xxs: 3.2548,
  iq3_m: 3.7628,
};

// Bits per weight of one ggml block (ggml-org/llama.cpp@007dbbf3fd17eefe9b47fee45f48f7ba5e62b714
// ggml/src/ggml-common.h: block_q4_K 144 B, block_q5_K 176 B, block_q6_K 210 B per 256; block_q5_0 22 B,
// block_q5_1 24 B, block_q8_0 34 B per 32).
const K_BLOCK = 256;
const BLOCK_BPW = { q4_K: 4.5, q5_K: 5.5, q6_K: 6.5625, q5_0: 5.5, q5_1: 6, q8_0: 8.5 } as const;

/**
 * Each GGUF type's k-quant mix as stored at a row width that is a multiple of 256: the base k-type and the Q6_K
 * it raises some tensors to (attn_v, ffn_down, output), and the bits per weight llama.cpp falls back to where the
 * width is not a multiple of 256 (ggml-org/llama.cpp@007dbbf3fd17eefe9b47fee45f48f7ba5e62b714
 * src/llama-quant.cpp tensor_type_fallback: Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0). Q8_0 blocks are 32 wide:
 * no fallback.
 */
const K_MIX: Partial<Record<GgufDtype, { base: number; fallback: number }>> = {
  q4_k_m: { base: BLOCK_BPW.q4_K, fallback: BLOCK_BPW.q5_0 },
  q5_k_m: { base: BLOCK_BPW.q5_K, fallback: BLOCK_BPW.q5_1 },
  q6_k: { base: BLOCK_BPW.q6_K, fallback: BLOCK_BPW.q8_0 },
};

/**
 * Bytes per weight element of a GGUF tensor whose rows are `width` elements long (its input features: the quant
 * blocks run along them). A width that is a multiple of 256 stores the file's mix (GGUF_BPW); another stores each
 * k-quant tensor in its fallback type, the mix's Q6_K share going to Q8_0; the output head goes straight to Q8_0
 * (src/llama-quant.cpp llama_tensor_get_type_impl: `nx % qk_k != 0` -> GGML_TYPE_Q8_0). Other dtypes: valueBytes.
 * A low-bit mix (gguf-mix.ts) gives the output head (`head`) and the token embedding types of their own.
 */
export function ggufTensorBytes(w: WeightDtype, width: number, head = false): number {
  if (isLowBitGguf(w)) return lowBitEndBytes(w, width, head);
  const mix = (K_MIX as Partial<Record<WeightDtype, { base: number; fallback: number }>>)[w];
  if (!mix || width % K_BLOCK === 0) return valueBytes(w);
  if (head) return BLOCK_BPW.q8_0 / 8;
  const bpw = GGUF_BPW[w as GgufDtype];
  const q6Share = mix.base === BLOCK_BPW.q6_K ? 1 : (bpw - mix.base) / (BLOCK_BPW.q6_K - mix.base);
  return ((1 - q6Share) * mix.fallback + q6Share * BLOCK_BPW.q8_0) / 8;
}

// OCP Microscaling spec v1.0 §5: MXFP4 = blocks of 32 E2M1 values sharing one 8-bit E8M0 scale.
const MXFP4_BLOCK = 32;
// NVFP4 (NVIDIA Blackwell): blocks of 16 E2M1 values with one FP8 E4M3 scale, plus one fp32 per tensor
// (https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/).
const NVFP4_BLOCK = 16;

/**
 * Bytes of quantization constants for a linear of `rows` x `cols`.
 * int8: LLM.int8 keeps one fp32 scale per output row (bitsandbytes Int8Params.SCB).
 * fp8: one fp32 scale per output channel (compressed-tensors FP8 "channel" / dynamic per-token acts).
 */
export function quantConstantBytes(
  w: WeightDtype,
  rows: number,
  cols: number,
  doubleQuant: boolean,
): number {
  const n = rows * cols;
  switch (w) {
    case 'int8':
    case 'fp8':
      return 4 * rows;
    case 'nf4':
    case 'fp4':
      return doubleQuant ? n / NF4_BLOCK + (4 * n) / (NF4_BLOCK * DQ_BLOCK) : (4 * n) / NF4_BLOCK;
    case 'int4':
      return ((2 + 0.5) * n) / INT4_GROUP;
    case 'mxfp4':
      return n / MXFP4_BLOCK;
    case 'nvfp4':
      return n / NVFP4_BLOCK + 4;
    default:
      return 0;
  }
}

/** 2:4 semi-structured: half the values plus 1 bit of metadata per dense element (56.25% of fp16). */
export const SEMI_STRUCTURED_META_BYTES_PER_ELEMENT = 1 / 8;
/** torch.sparse_csr_tensor indices are int64 (col_indices per value, crow_indices per row + 1). */
export const CSR_INDEX_BYTES = 8;
