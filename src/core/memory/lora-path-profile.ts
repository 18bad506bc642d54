/**
 * The LoRA path an engine runs beside each adapted linear, as traffic and kernels (FrameworkProfile.loraPath): with
 * input width d_in and output width d_out, per micro-batch of T tokens, the forward reads and writes
 * (fwdIn·d_in + fwdOut·d_out)·T elements of the compute dtype and launches fwdOps kernels; the backward
 * (bwdIn·d_in + bwdOut·d_out)·T elements and bwdOps kernels.
 */

/**
 * One adapted linear's LoRA branch in 16-bit passes over its input (`In`) and output (`Out`) widths and kernels,
 * forward and backward; `dropoutIn`: the dropout's input passes each way where the run sets one.
 */
export interface LoraBranchPasses {
  fwdIn: number;
  fwdOut: number;
  fwdOps: number;
  bwdIn: number;
  bwdOut: number;
  bwdOps: number;
  /**
   * With LoRA dropout on (loraDropout): nn.Dropout reads x and writes its output and a 1-byte mask, and its
   * backward reads the gradient and the mask and writes the result: input passes each way (one kernel each).
   */
  dropoutIn: number;
}

/** A LoRA path's passes (LoraBranchPasses, the autocast path's) and what the base layer and compile add or save. */
export interface LoraPathCost extends LoraBranchPasses {
  /** On a quantized (bitsandbytes 4-bit) base layer: extra output passes and kernels in forward. */
  quantFwdOut: number;
  quantFwdOps: number;
  /**
   * On a 16-bit base layer with fp32 adapters (fp32Adapters): the input cast to the adapter dtype and back,
   * extra input passes and kernels in forward and again in backward (the casts' gradients).
   */
  fp32CastIn: number;
  fp32CastOps: number;
  /** Under torch.compile (--compile): output passes and kernels saved in forward by fusing the pointwise ops. */
  compiledSavesOut: number;
  compiledSavesOps: number;
  /**
   * fp32 adapters on a 16-bit model trained without torch.autocast (TimeOptions.noAutocast): the branch computes in
   * fp32, so its passes (16-bit units, the cast and the fp32 dropout included) replace the autocast path's
   * fwdIn..bwdOps, fp32Cast* and dropoutIn. Absent: the autocast path's counts.
   */
  fp32Branch?: LoraBranchPasses;
  /**
   * Under torch.use_deterministic_algorithms (TimeOptions.deterministicFill): the NaN fill of each allocation the
   * path's unstructured ops make (casts, dropout), one write pass of each, on the autocast path (`autocast`) and
   * the fp32 branch (`fp32`); absent: none counted.
   */
  deterministicFill?: { autocast: LoraFillPasses; fp32: LoraFillPasses };
  /**
   * A path that fuses a layer's projections by group (q/k/v together, gate/up/down together, o alone) runs only
   * where every linear of the group is adapted; an adapted linear of an incomplete group runs this path instead.
   */
  partialGroup?: LoraPathCost;
}

/**
 * The deterministic NaN fill on one adapted linear's LoRA branch: write passes (16-bit units) over its input and
 * output widths and fill kernels, forward and backward; the dropout's own (its output and mask forward, its
 * gradient backward) where the run sets one, on the fp32 x of cast adapters (`dropout`) or the 16-bit x (`dropout16`).
 */
export interface LoraFillPasses extends Omit<LoraBranchPasses, 'dropoutIn'> {
  dropout: { fwdIn: number; bwdIn: number };
  dropout16: { fwdIn: number; bwdIn: number };
}

/**
 * FrameworkProfile.loraForwardHost: host time of one adapted linear's unmerged LoRA forward at a decode step of the
 * trainer's own generate, in a plain decoder layer's host time (`layers`), measured in an arm that dispatched `kernels`
 * ops. The forward's Python beyond those ops (PEFT's nn.Module calls and adapter loop, or what the engine's rewrite of
 * it keeps) adds layers x OPS_PER_LAYER_EAGER - kernels eager ops to each adapted linear, beside the ops counted
 * (loraForwardOps, a build's own count, or PEFT's; time/objective.ts trainerGenerateAdapterOps). Absent: the ops alone.
 */
export interface LoraForwardHost {
  layers: number;
  kernels: number;
}
