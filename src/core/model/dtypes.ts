/** Bytes per element of each storage format, quantization constants included separately. */
import type { ComputeDtype, StateDtype, WeightDtype } from '../../schema/estimate.js';

export const FLOAT_BYTES: Record<ComputeDtype | StateDtype, number> = { fp32: 4, fp16: 2, bf16: 2 };

/** The 4-bit float formats of bitsandbytes (NF4, FP4): blockwise, dequantized whole per matmul. */
export const isFourBitFloat = (w: WeightDtype): boolean => w === 'nf4' || w === 'fp4';

/** Weight dtypes that store one float per parameter (trainable by full fine-tuning). */
export const isFloatDtype = (w: WeightDtype): w is ComputeDtype =>
  w === 'fp32' || w === 'fp16' || w === 'bf16';

// QLoRA §3 (arXiv:2305.14314): NF4/FP4 blocks of 64 weights with one fp32 absmax each.
const NF4_BLOCK = 64;
// Double quantization: absmax quantized to 8 bit in blocks of 256 with one fp32 constant (QLoRA §3).
const DQ_BLOCK = 256;
// GPTQ/AWQ group-wise int4: one fp16 scale and a packed 4-bit zero point per group of 128 (AutoGPTQ default).
const INT4_GROUP = 128;

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
      return 0.5;
  }
}

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
    default:
      return 0;
  }
}

/** 2:4 semi-structured: half the values plus 1 bit of metadata per dense element (56.25% of fp16). */
export const SEMI_STRUCTURED_META_BYTES_PER_ELEMENT = 1 / 8;
/** torch.sparse_csr_tensor indices are int64 (col_indices per value, crow_indices per row + 1). */
export const CSR_INDEX_BYTES = 8;
