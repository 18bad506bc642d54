/**
 * bitsandbytes' blockwise NF4/FP4 dequantization kernel (kDequantizeBlockwise) before release 0.48.0 decoded each
 * 4-bit value through a four-level branch tree (dDequantizeNF4 / dDequantizeFP4Tree in csrc/kernels.cu);
 * bitsandbytes-foundation/bitsandbytes#1746 (commit b1f80b8a, 2025-09-18, first tagged in 0.48.0 of 2025-09-30)
 * replaced the tree with a lookup table. bitsandbytes-foundation/bitsandbytes#1747 (a warp-shuffle lookup table,
 * timed with dequantize_4bit over problem sizes on seven GPUs) reports the lookup kernel "1.36x - 2.07x faster" on
 * the P100, A100 and H100 across all problem sizes, "1.25x - 1.80x" on the T4, and on sm86/sm89 (A10, RTX 4090, L4)
 * faster only at smaller problem sizes. The tree kernel therefore ran at least that factor below the lookup kernel's
 * rate, and on sm86/sm89 at weight-matrix sizes both stream at the memory rate. On the T4 the factor is the middle
 * (geometric mean) of the quoted range, taken against a memory-rate pass. On the P100, A100 and H100 it is read off
 * an absolute timing of a tree build instead: bitsandbytes' own benchmark table for 0.45.0.dev has Llama 3.1 70B NF4
 * decoding at batch 8 on an H100, where every linear dequantizes its weight and then multiplies it. Beside the 16-bit
 * GEMM's read of the copy, which the bf16 decode rows time as modelled, that run takes 2.98 dequantization passes at
 * the memory rate. The factor thus holds the tree kernel and anything else the path loses at that batch. Set
 * against bitsandbytes-foundation/bitsandbytes#1747's 1.36-2.07x, it says the lookup kernel too runs below the
 * memory rate. The lookup kernel (0.48.0 on, what the pinned bitsandbytes runs) is priced from the two together:
 * the tree factor over the middle of bitsandbytes-foundation/bitsandbytes#1747's range on sm60/80/90, 1 on the T4 (its
 * tree factor is itself that ratio against a memory-rate pass) and on sm86/sm89. Dividing the whole 3.0 by the kernel
 * ratio is the lowest reading: any part of it lost outside the kernel would not speed up with the lookup table.
 */
import type { QuantFormat, TimeOptions } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import { INT8_FORWARD_GEMM_SLOWDOWN } from './train-work.js';

// P100, A100, H100 (sm60, sm80, sm90): NF4 Llama 3.1 70B at batch 8 on an H100 SXM, 234.8 ms a token with bitsandbytes
// 0.45.0.dev (bitsandbytes-foundation/bitsandbytes@1b7b9bb4 benchmarking/README.md): 2.98 passes in the estimate of
// that run (its batch-32 and double-quant cells read 3.1-3.35); one value for the three, as
// bitsandbytes-foundation/bitsandbytes#1747 groups them.
const TREE_SLOWDOWN_DATACENTER = 3.0;
// Lookup kernel on sm60/80/90: 3.0 / sqrt(1.36 x 2.07) = 3.0 / 1.68 = 1.79, bitsandbytes-foundation/bitsandbytes#1747.
const LOOKUP_SLOWDOWN_DATACENTER = TREE_SLOWDOWN_DATACENTER / Math.sqrt(1.36 * 2.07);
// T4 (sm75): sqrt(1.25 x 1.80), bitsandbytes-foundation/bitsandbytes#1747.
const TREE_SLOWDOWN_TURING = 1.5;
// Compute capabilities of the GPUs each range was measured on (bitsandbytes-foundation/bitsandbytes#1747's list).
const DATACENTER_CC = [6.0, 8.0, 9.0]; // P100, A100, H100: bitsandbytes-foundation/bitsandbytes#1747
const TURING_CC = 7.5; // T4: bitsandbytes-foundation/bitsandbytes#1747

/**
 * How much longer the pre-0.48 tree kernel takes than a pass at the memory rate on a GPU of this compute
 * capability: 1 where the change was not measured to gain at weight-matrix sizes (sm86, sm89) or not measured.
 */
export function bnbTreeDequantSlowdown(cc: number): number {
  if (DATACENTER_CC.includes(cc)) return TREE_SLOWDOWN_DATACENTER;
  if (cc === TURING_CC) return TREE_SLOWDOWN_TURING;
  return 1;
}

/**
 * How much longer the lookup-table kernel (bitsandbytes 0.48.0 on) takes than a pass at the memory rate: the tree
 * kernel's factor over bitsandbytes-foundation/bitsandbytes#1747's gain on sm60/80/90; 1 on the T4 (whose tree factor
 * is that gain against a memory-rate pass), on sm86/sm89 (both kernels stream at the memory rate at weight sizes) and
 * where it was not measured.
 */
export function bnbLookupDequantSlowdown(cc: number): number {
  return DATACENTER_CC.includes(cc) ? LOOKUP_SLOWDOWN_DATACENTER : 1;
}

/** The factor of a 4-bit bitsandbytes dequantization pass for the build's kernel (TimeOptions.bnbTreeDequant). */
export function bnbDequantSlowdown(cc: number, tree: boolean): number {
  return tree ? bnbTreeDequantSlowdown(cc) : bnbLookupDequantSlowdown(cc);
}

/**
 * Bytes per element of a dequantizing kernel's copy. 4 where the step runs bitsandbytes' 4-bit path in fp32
 * (TimeOptions.bnbDecodeFp32): unsloth_zoo's `_apply_4bit_weight` casts the input to the QuantState's dtype and
 * `MatMul4Bit.forward` dequantizes to that dtype, then `F.linear` multiplies in it (unsloth_zoo 2025.5.11
 * vllm_utils.py; bitsandbytes 0.45.5 autograd/_functions.py, functional.py `dequantize_4bit`:
 * `cdequantize_blockwise_fp32_nf4` for an fp32 state). Where only the routed experts' down projections run in fp32
 * (TimeOptions.bnbDecodeFp32MoeDown), their share of the step's quantized elements (`downShare`) at 4 and the rest
 * at 2. 2 (the 16-bit compute dtype) otherwise.
 */
export function copyBytes(q: QuantFormat | null, t: TimeOptions, downShare: number): number {
  if (q !== 'bnb') return 2;
  if (t.bnbDecodeFp32 === true) return 4;
  return t.bnbDecodeFp32MoeDown === true ? 2 + 2 * downShare : 2;
}

// Bytes per int8 weight element of bitsandbytes' default int8_linear_matmul beyond the GEMM: `B.float()` reads the
// int8 weight (1 B) and writes it in fp32 (4 B) on every call (_int8_linear_matmul_impl in
// bitsandbytes-foundation/bitsandbytes@37d2a938 backends/default/ops.py, 0.50.1; unchanged in 0.50.2).
const INT8_DEFAULT_CAST_BYTES = 5;

/**
 * Seconds LLM.int8's forward (and recompute) matmuls of frozen int8 weights take beyond a 16-bit GEMM of the same
 * FLOPs (`int8ForwardFlops`, over `tokens` per micro-batch; `gemm`: the step's 16-bit rate, `shape` of the GEMMs'
 * size). On CUDA bitsandbytes
 * runs its int8 kernels: INT8_FORWARD_GEMM_SLOWDOWN. On an Apple GPU it registers none for MPS (backends/mps/ops.py
 * holds the 4-bit ops only), so the "default" kernel runs: `torch.matmul(A.float(), B.float().t()).to(torch.int32)`,
 * an fp32 GEMM (the fp32 rate at the same shape) after casting the weight to fp32 each call. The casts of the activations and of the
 * int32 output (tokens x features each) are left out.
 */
export function int8ForwardExtraSeconds(
  int8ForwardFlops: number,
  tokens: number,
  r: Pick<GpuRates, 'apple' | 'gemm32' | 'mem'>,
  gemm: number,
  shape: number,
): number {
  if (r.apple !== true) return (int8ForwardFlops * (INT8_FORWARD_GEMM_SLOWDOWN - 1)) / gemm;
  if (int8ForwardFlops === 0) return 0;
  // Weight elements multiplied per micro-batch: 2 FLOPs per element per token.
  const elements = int8ForwardFlops / (2 * tokens);
  return (
    int8ForwardFlops / (r.gemm32 * shape) -
    int8ForwardFlops / gemm +
    (elements * INT8_DEFAULT_CAST_BYTES) / r.mem
  );
}
