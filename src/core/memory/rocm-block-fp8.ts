/**
 * The ROCm figure of a block-scaled FP8 linear at decode (FrameworkProfile.blockFp8Linear.rocm): on the AMD gfx
 * targets listed, a fixed cost plus a cost per 128-wide block of K beyond the weight bytes (time/block-fp8.ts), with
 * `sharedExpertsFused` where the MoE layers' shared expert runs inside the fused-MoE call. `absorbDequant`: where the
 * engine keeps MLA's kv_b (the absorbed W_UK / W_UV of its decode bmm's) in FP8 with a per-tensor scale and widens it
 * to 16 bits in every step before a 16-bit bmm, the bytes that traffic moves per kv_b weight beyond the one byte the
 * step's weight read counts, and the elementwise kernels it launches per MLA layer (time/block-fp8.ts
 * absorbDequantSeconds). Absent: kv_b at its weight bytes. `fusedMoePerKBlockSeconds`: where AITER's block-FP8 fused MoE
 * runs the routed experts there (AITER on: RocmBlockFp8Prefill.aiterLinearsTriton, TimeOptions.rocmAiter), the cost of
 * each 128-wide block of K its decode call walks in series, w13's (the hidden size) then w2's (an expert's width on the
 * GPU): a call takes the longer of that chain and its experts' bytes (time/aiter-moe.ts). Absent: the engine's
 * FrameworkProfile.moeCallSeconds.
 */
export interface RocmBlockFp8Linear {
  targets: readonly string[];
  baseSeconds: number;
  perKBlockSeconds: number;
  sharedExpertsFused: boolean;
  absorbDequant?: { extraBytesPerParam: number; kernels: number };
  fusedMoePerKBlockSeconds?: number;
}

/**
 * The ROCm ceiling of a block-scaled FP8 prefill (FrameworkProfile.blockFp8Linear.rocmPrefill): on the AMD gfx targets
 * listed, where the engine runs its Triton blockwise kernels (AITER's not switched on: TimeOptions.rocmAiter), a
 * prefill's GEMMs reach at most `peakShare8` of the 8-bit peak (a kernel tiled for the target), times
 * `defaultTileShare` where the engine runs its own kernels at their default tiles (no tuned file for the shape): the
 * share of a tuned run's rate the default tiles reach (time/block-fp8.ts blockFp8GemmRate). Absent: 1.
 * `aiterLinearsTriton`: the engine's AITER linear path runs a Triton blockwise GEMM on these targets as well, and AITER
 * is the engine's default there (TimeOptions.rocmAiter unset reads as on): the linears keep the ceiling with AITER on,
 * the routed experts (AITER's own fused MoE) do not. Absent: AITER's kernels lift the ceiling from both.
 */
export interface RocmBlockFp8Prefill {
  targets: readonly string[];
  peakShare8: number;
  defaultTileShare?: number;
  aiterLinearsTriton?: boolean;
}
