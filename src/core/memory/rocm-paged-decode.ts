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
  /** The releases the split kernel runs in and, on the engine's pre-V1 loop, what runs where it does not. */
  releases?: RocmSplitReleases;
}

/**
 * The engine releases that have the split HIP decode kernel (RocmPagedDecode.releases): none before `since`, and in
 * each release only up to `maxSeqLen` tokens of the batch's longest sequence (the entry whose `until` the release is
 * before; the last entry has none). On the engine's pre-V1 loop (TimeOptions.v0Scheduler) a decode the split kernel
 * does not take runs the generic paged-attention kernel, one workgroup for each query head (time/decode-attention.ts
 * kvReadRate); the V1 backends fall back to the Triton kernel as before. A release that does not name the part
 * `since` or `until` is decided by (e.g. "0.6" against "0.6.2") is taken as the later one.
 */
export interface RocmSplitReleases {
  since: string;
  maxSeqLen: readonly { until?: string; tokens: number }[];
}
