/**
 * Serving-engine layout profiles a FrameworkProfile carries: the cache layout, the row split and the admission reserve.
 * Pure types.
 */

/**
 * A serving engine's cache layout (memory/kv-layout.ts): the dtypes of the recurrent state, the cells a
 * sliding-window layer holds, hybrid page unification and the fp8 KV element. Without one, an engine keeps a
 * plain cache as transformers does: the window's cells, the state in the model dtype (a Gated DeltaNet's
 * temporal state in fp32).
 */
export interface CacheLayoutProfile {
  /** Bytes per element of a recurrent layer's conv state: the compute dtype's, or a fixed size. */
  convStateBytes: 'compute' | number;
  /**
   * Bytes per element of the temporal (SSM / delta-rule) state: a fixed size, or 'config': the dtype the model's
   * config names (RecurrentState.stateBytes), else the engine's per-model default (vllmStateBytes), else the
   * compute dtype's.
   */
  temporalStateBytes: 'config' | number;
  /**
   * KV cells a sliding-window layer holds per sequence: 'blocks': whole blocks over the window plus one, freed
   * as they leave it; 'padded': the window plus the ubatch, padded to `pad` cells; 'pool-share': a sliding pool
   * sized at `ratio` x the full pool's tokens, so each token held costs `ratio` of a sliding token.
   */
  sliding:
    | { kind: 'blocks'; blockTokens: number }
    | { kind: 'padded'; pad: number }
    | { kind: 'pool-share'; ratio: number };
  /**
   * Hybrid attention / recurrent models: layer groups of one size per kind, and recurrent pages padded to
   * attention blocks, a multiple of `blockTokens` tokens (kv-layout.ts hybridPadding). `groupSeqHostSeconds`: the
   * serial scheduler's host work per running request and decode step for each KV-cache group beyond the first
   * (kv-layout.ts kvCacheGroups), added to FrameworkProfile.serialSeqHostSeconds; absent 0.
   */
  hybridPages?: { blockTokens: number; groupSeqHostSeconds?: number };
  /** Bytes per element of an fp8 KV cache when the engine writes another format for it (default 1). */
  fp8KvElementBytes?: number;
  /** The cache type an fp8 KV cache is written as where the engine has no fp8 one (absent: fp8). */
  fp8KvType?: string;
  /** Bytes per element of a 4-bit KV cache (`--kv-cache-dtype q4_0`); absent: the engine writes none. */
  q4KvElementBytes?: number;
}

/**
 * What a row-split matrix multiplication costs beyond its share of the weights: the main GPU sends each other GPU
 * the activation and gathers its rows of the result back, peer copies on the step's critical path.
 */
export interface RowSplitProfile {
  /** Peer copies in series per split matmul and other GPU: the activation out, its rows of the result back. */
  copiesPerMatmul: number;
  /** Seconds one small copy takes, submitted from the host (a copy staged through host memory takes two). */
  copySeconds: number;
  /** Bytes per activation element sent (quantized input) and per result element returned. */
  inBytesPerElement: number;
  outBytesPerElement: number;
  /** Tokens a split matmul moves per round of copies: a larger batch takes ceil(tokens / this) rounds. */
  tokensPerRound: number;
  /** Tokens above which the engine turns peer access off: its copies are staged through host memory. */
  peerMaxTokens: number;
  /** GPU idle added to each kernel gap when the split disables CUDA-graph replay (launched one by one). */
  ungraphedKernelSeconds: number;
}

/**
 * How a serving engine lays out one prefill forward's layers (FrameworkProfile.eagerPrefillLayerKernels): DP attention
 * or not (EstimateOptions.dpAttention), the attention's tensor-parallel degree (the rank's tp), and the MoE layers'
 * expert-parallel degree (EstimateOptions.ep, 1 when absent).
 */
export interface PrefillParallel {
  dpAttention: boolean;
  attentionTp: number;
  ep: number;
}

/**
 * FrameworkProfile.eagerPrefillLayerKernels: a dense and an MoE layer's calls, or undefined where not counted. `gfx`:
 * an AMD card's gfx target (its compute capability reads 0).
 */
export type PrefillLayerKernels = (
  modelType: string,
  cc: number,
  blockFp8: boolean,
  parallel: PrefillParallel,
  gfx?: string,
) => { dense: number; moe: number } | undefined;

/**
 * A serving engine's admission reserve (time/admission-reserve.ts): the ratio of running requests' remaining output
 * its scheduler keeps free before it admits another request.
 */
export interface AdmissionReserve {
  /** The ratio at start, the floor it decays to, and the decode steps the decay takes. */
  initRatio: number;
  minRatio: number;
  decaySteps: number;
  /** The most output tokens a request's reserve counts. */
  clipTokens: number;
  /**
   * What a retraction (the pool running dry mid-decode; time/length-spread.ts preempts the last admitted) does to
   * the ratio and to the retracted request (absent: the ratio keeps decaying and the retracted go back at the head of
   * the queue). `aheadSteps`: the ratio is set to the running requests' decoded tokens plus this many a request, over
   * their whole max_new_tokens, at most 1, and decays again from there. `requeue` 'back': the retracted join the end
   * of the waiting queue, behind the requests not yet admitted.
   */
  retraction?: { aheadSteps: number; requeue: 'front' | 'back' };
}

/** A paged-pool server's start and admission (FrameworkProfile.server), for `--from` serve lines (from/pool-batch.ts). */
export interface ServerStart {
  /** The error the server raises at start-up on a pool short of what it starts with (poolStartBudget), and its source. */
  startRefusal?: string;
  /** What a server that starts on a pool shorter than one max-context sequence does with a request, and its source. */
  poolCapsRequest?: string;
  /**
   * Its running-request cap as the server resolves it (`given`: the command line's, else its default) from the
   * pool's tokens, the max context and the GPU.
   */
  runningCap?: (
    given: number | undefined,
    poolTokens: number,
    context: number,
    capacityBytes: number,
    deviceName: string,
  ) => number;
  /**
   * One MoE layer's fused-expert workspaces in its start-up profile's forward of `tokens` tokens (bytes), where they
   * outgrow the layer's generic MLP intermediates: they replace them in that layer's prefill transients. Absent: the
   * generic ones.
   */
  moeWorkspace?: (w: Record<'tokens' | 'hidden' | 'ffn' | 'topK' | 'tp' | 'c', number>) => number;
}

/**
 * An engine's custom all-reduce above its one-stage sizes (FrameworkProfile.twoStageAllReduce): inside a fully
 * NVLinked node a call of `fromBytes(tp)` bytes or more, up to `maxBytes`, runs the two-stage kernel (a
 * reduce-scatter and an all-gather, each behind a barrier across the ranks) instead of the one-stage one, which reads
 * every peer's whole buffer: a fixed part and its bus bytes (2 (tp - 1) / tp of the message) at `busBytesPerSecond`,
 * no faster than the link's rate.
 */
export interface TwoStageAllReduce {
  fromBytes: (tp: number) => number;
  maxBytes: number;
  seconds: number;
  busBytesPerSecond: number;
}
