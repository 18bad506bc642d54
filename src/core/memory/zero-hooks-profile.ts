/** The ZeRO hooks of an engine that runs DeepSpeed (FrameworkProfile.zeroHooks; engines/hf/memory.ts). */
/**
 * Time: eager host ops of the engine's ZeRO hooks (DeepSpeed's; engines/hf/memory.ts). `moduleOps`: ZeRO-3
 * gathers each submodule's parameters before it runs and releases them after, in forward, recompute and
 * backward (per module per pass); `gradOps`: ZeRO-2 and ZeRO-3 move each trainable parameter's gradient
 * into the reduce bucket from its autograd hook (per parameter tensor per micro-batch). Absent: none
 * (FSDP gathers a whole wrapped unit at a time). `reduceOps3`: ZeRO-3 then reduce-scatters each bucket and files
 * each gradient's partition, per parameter tensor `perParam` ops plus `perRank` per data-parallel rank.
 * `leafMoe`: model types whose sparse MoE block ZeRO-3 marks a leaf module by default: the block gathers every
 * parameter beneath it at once and no module beneath it is hooked, and its parameters' gradients reduce from one
 * backward hook on the block, every expert's (a zero gradient for an expert no token reached).
 */
export interface ZeroHooksProfile {
  moduleOps: number;
  gradOps: { 2: number; 3: number };
  reduceOps3: { perParam: number; perRank: number };
  leafMoe?: readonly string[];
  /** ZeRO-3's offloaded partitions reach the GPU by a blocking copy on the fetching thread (time/train-step.ts). */
  blockingParamCopies?: boolean;
  /**
   * ZeRO-3 keeps a module's gathered parameters when its recorded trace uses them again within this many elements
   * (`stage3_max_reuse_distance`): under full recompute the backward gathers again only the parameters whose next
   * use lies beyond it (time/zero-collectives.ts backwardRegatherShare). Absent: the backward gathers every unit again.
   */
  maxReuseDistance?: number;
  /**
   * ZeRO-3's host price measured by running the engine's own hooks (in place of moduleOps, gradOps[3] and
   * reduceOps3.perParam): host seconds per hooked module pass, for a module that gathers a parameter of its own
   * and one that gathers none, and per gradient (its bucket copy, reduce-scatter and partition filing), on
   * `ranks` ranks of a device without streams; `streamOps`: the stream and event calls that device skipped, per
   * module pass and per gradient, counted as eager ops on top. `collectiveOps`: the CUDA calls the GPU backend's
   * collective makes on the issuing thread (a host backend's enqueue makes none), counted as eager ops per
   * collective (none on one rank): each all-gather of a prefetch group (parameters above `persistence`, grouped
   * until they reach `prefetchBucket`: time/zero-collectives.ts) and each reduce-scatter of `reduceBucket`
   * gradient elements. Each bucket is `elements` by default, a multiple of the hidden size (squared) where the
   * run's config left it 'auto' for the trainer to fill.
   */
  host3?: {
    gathering: number;
    bare: number;
    gradient: number;
    ranks: number;
    streamOps: { gathering: number; bare: number; gradient: number };
    collectiveOps: number;
    /**
     * A coalesced all-gather's (more than one parameter) per-rank host work: slices of its flat buffer per group
     * and of each parameter's partitions per parameter, for the ranks beyond `ranks`, at `sliceSeconds` each; and
     * each parameter's stream record per rank (which a device without streams skipped), at `recordStreamSeconds`.
     */
    coalescedPerRank: {
      bufferSlices: number;
      paramSlices: number;
      sliceSeconds: number;
      recordStreamSeconds: number;
    };
    reduceBucket: { elements: number; autoPerHidden2: number };
    prefetchBucket: { elements: number; autoPerHidden2: number };
    persistence: { elements: number; autoPerHidden: number };
  };
}
