/**
 * A decode step's attention on an AMD GPU (ROCm), FrameworkProfile.rocmPagedDecode: the paged cache's block sizes,
 * head sizes and query heads a KV head (at most) the engine's split-context HIP kernel takes, the cache's block size
 * where none is given, the most tokens a tile of the fallback Triton kernel (time/decode-attention.ts
 * unsplitChainSeconds), and `peakShares`: on the gfx targets listed, where the engine's own kernels run (not AITER's:
 * TimeOptions.rocmAiter), the share of the card's peak bandwidth the HIP kernel's KV read sustains where it takes the
 * layers (`split`) and the Triton kernel's otherwise (`triton`) (time/decode-attention.ts kvReadRate). Without
 * `peakShares`: the card's stream rate.
 */
export interface RocmPagedDecode {
  blockSizes: readonly number[];
  headSizes: readonly number[];
  maxQueriesPerKv: number;
  defaultBlockSize: number;
  maxTileTokens: number;
  peakShares?: { gfx: readonly string[]; split: number; triton: number };
}
