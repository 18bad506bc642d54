/**
 * The shapes of an engine's fused_moe launch grid (FrameworkProfile.fusedMoeTile16.grid), priced by moe-grid.ts, and
 * of its default tiles by dtype family (FrameworkProfile.fusedMoeTile16.defaults), priced by moe-default-tiles.ts.
 */

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
  /**
   * The share of the card's dense 16-bit peak the 16-bit kernel's GEMMs reach once its row blocks fill (a tuned config
   * at thousands of routed rows), per generation where a kernel benchmark gives it: compute capability 8.x (`ampere`)
   * and 9.x (`hopper`). Absent: the card's GEMM rate (time/moe-pad-rows.ts tritonMoeRate).
   */
  largeMPeakShare?: { ampere?: number; hopper?: number };
}

/**
 * The dtype families whose tuned fused_moe config files an engine names apart: 16-bit experts (no `dtype=` in the file
 * name) and block-scaled FP8 ones (`dtype=fp8_w8a8,block_shape=[128,128]`).
 */
export type MoeTileFamily = 'bits16' | 'blockFp8';

/**
 * One dtype family's tuned fused_moe config files by release, local expert shape and card, which kernel runs its
 * experts, and what the default tiles cost against a tuned file (FusedMoeDefaultTiles; time/moe-default-tiles.ts).
 */
export interface MoeFamilyTiles {
  /**
   * At release `version` (undefined: none given), a tuned file for `e` local experts whose down projection is `n` wide
   * on one rank, on card `gpuId`: true, false, or undefined (not known: not priced).
   */
  tuned(version: string | undefined, e: number, n: number, gpuId: string): boolean | undefined;
  /**
   * At release `version` on a card of compute capability `cc`, for a call of `tokens` tokens (the step's routed batch):
   * the Triton fused_moe runs the family's experts (true), another kernel (false), or not known. Absent: the step's
   * own kernel choice decides (16-bit experts' runner).
   */
  triton?(version: string | undefined, cc: number, tokens: number): boolean | undefined;
  /**
   * On an AMD GPU, at release `version`, with the engine's AITER MoE on (`aiter`) or off: the Triton fused_moe runs the
   * family's experts (true), another kernel (false), or not known. Absent: not priced on AMD GPUs.
   */
  rocmTriton?(version: string | undefined, aiter: boolean): boolean | undefined;
  /** The default tiles' kernel time over a tuned file's at `tokens` routed tokens through `e` local experts. */
  slowdown(tokens: number, e: number): number;
  /**
   * Where `tuned` says a file applies: the BLOCK_SIZE_M (`m`) and BLOCK_SIZE_N (`n`: the columns each row block of the
   * launch grid spans, time/moe-grid.ts) of its M-bucket nearest `tokens` token rows (the engines'
   * `configs[min(configs.keys(), key=lambda x: abs(x - M))]`), from the file as the release ships it; undefined where
   * its BLOCK_SIZE_M is not kept (the default tiles are then taken), `n` undefined where only its BLOCK_SIZE_N is not.
   * Absent: none kept.
   */
  tile?(
    version: string | undefined,
    e: number,
    n: number,
    gpuId: string,
    tokens: number,
  ): TunedFileTile | undefined;
  /**
   * Under expert parallelism the lookup names the rank's local experts at whole-expert width (vLLM's `E, _, N =
   * w2_shape`). Absent: such steps are not priced (their per-rank shapes not read).
   */
  localUnderEp?: boolean;
}

/** A tuned fused_moe file's tile at one M-bucket (MoeFamilyTiles.tile). */
export interface TunedFileTile {
  m: number;
  n: number | undefined;
}

/**
 * The engine's default fused_moe tiles where no tuned config file ships (FusedMoeTile16.defaults), per dtype family.
 * A family absent is not priced.
 */
export type FusedMoeDefaultTiles = Partial<Record<MoeTileFamily, MoeFamilyTiles>>;

/** The engine's 16-bit fused_moe tiles (FrameworkProfile.fusedMoeTile16: its fields are documented there). */
export interface FusedMoeTile16 {
  blockK: number;
  stages: number;
  rocmStages?: number;
  grid?: FusedMoeGrid;
  defaults?: FusedMoeDefaultTiles;
}
