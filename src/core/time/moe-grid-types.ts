/** The shapes of an engine's fused_moe launch grid (FrameworkProfile.fusedMoeTile16.grid), priced by moe-grid.ts. */

/** BLOCK_SIZE_M and BLOCK_SIZE_N of the engine's default fused_moe tiles. */
export interface MoeTileMN {
  m: number;
  n: number;
}

/** What an early-exiting program costs on one GPU generation, and how many per SM the timed shape launched. */
export interface ExitProgramCost {
  /** Seconds one early-exiting program holds an SM's launch slots. */
  seconds: number;
  /** Early-exiting programs per SM in the batch-1 call the engine's moeCallSeconds figure was timed at. */
  timedPerSm: number;
}

/** The engine's fused_moe grid (FrameworkProfile.fusedMoeTile16.grid). */
export interface FusedMoeGrid {
  /** Default tiles: 16-bit experts up to E tokens and above; block-scaled FP8 experts. */
  tiles: { small16: MoeTileMN; large16: MoeTileMN; blockFp8: MoeTileMN };
  /** Experts the alignment pads beyond the routed ones (SGLang's E + 1, vLLM's E). */
  alignExtraExperts: number;
  /**
   * The launch caps its row blocks at M x topk below BLOCK_SIZE_M tokens (vLLM's `invoke_fused_moe_kernel`: `EM =
   * min(len(sorted_token_ids), M x topk x BLOCK_SIZE_M)` when M < BLOCK_SIZE_M), in every build. Absent: no such cap.
   */
  smallBatchRowCap?: boolean;
  /**
   * Under expert parallelism within one TP group (no DP: EP = TP) the alignment counts only the rank's own experts'
   * tokens into a buffer still sized for every expert, so the row blocks past them exit like padding ones, each as
   * wide as a whole expert: vllm 0.33.0 `experts/triton_moe.py` passes `ignore_invalid_experts` whenever an
   * `expert_map` is set (no LoRA), and `moe_align_block_size` sizes `sorted_token_ids` by the global `num_experts`.
   * Absent: such steps' grid is not priced (SGLang's Triton MoE writes zeros for the other ranks' experts instead).
   */
  epAlignsLocal?: boolean;
  /** Per generation where a timed shape gives it: Hopper (9.x); Ampere's for the generations below, as moeCallLatency. */
  exitProgram: { ampere?: ExitProgramCost; hopper?: ExitProgramCost };
  /** Block-FP8 tuned files by release and the default tiles' cost (time/moe-default-tiles.ts). Absent: not priced. */
  blockFp8Tiles?: BlockFp8MoeTiles;
}

/**
 * Whether an engine release ran a block-FP8 checkpoint's routed experts through the Triton fused_moe on a tuned config
 * file, and the default tiles' kernel time over a tuned file's by tokens (engines/vllm/moe-tiles.ts).
 */
export interface BlockFp8MoeTiles {
  /** At `version` on a card of compute capability `cc`: the Triton fused_moe (true), another kernel, or not known. */
  triton(version: string, cc: number): boolean | undefined;
  /** At `version`, a tuned file for `e` local experts of width `n` on card `gpuId`: true, false, or not known. */
  tuned(version: string, e: number, n: number, gpuId: string): boolean | undefined;
  /** The default tiles' kernel time over a tuned file's at `tokens` tokens. */
  slowdown(tokens: number): number;
}

/**
 * The engine's default 16-bit fused_moe tiles above E tokens against a tuned config file (FrameworkProfile.
 * fusedMoeTile16.defaults; time/moe-defaults.ts prices them).
 */
export interface FusedMoeDefaults16 {
  /** The share of a tuned file's rate the default tiles keep on a memory-bound step of more tokens than experts. */
  largeReadShare: number;
  /** Whether the release ships a tuned file for E experts of width N on the card; null: not known (not priced). */
  tuned: (experts: number, n: number, gpu: string, version: string | undefined) => boolean | null;
}

/** The engine's 16-bit fused_moe tiles (FrameworkProfile.fusedMoeTile16: its fields are documented there). */
export interface FusedMoeTile16 {
  blockK: number;
  stages: number;
  rocmStages?: number;
  grid?: FusedMoeGrid;
  defaults?: FusedMoeDefaults16;
}
