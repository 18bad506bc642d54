/**
 * How an engine lays out an MXFP4 MoE checkpoint's routed experts for its kernel (FrameworkProfile): the multiples it
 * pads the hidden size and one GPU's expert width to, by the kernel path the card takes (time/mxfp4-pad.ts).
 */
export interface Mxfp4ExpertPad {
  /** The hidden size (each expert's w13 columns, w2 rows) rounds up to a multiple of this; 1: not padded. */
  hidden: number;
  /** One GPU's share of an expert's width (w13 rows / 2, w2 columns) rounds up to a multiple of this. */
  width: number;
}

/** The MXFP4 expert padding of each kernel path: Marlin, triton_kernels on CUDA, TensorRT-LLM-gen and AMD GPUs'. */
export interface Mxfp4ExpertProfile {
  /**
   * Time: the routed experts' padded shape, which a decode step's expert GEMMs read in full (the pad's zeros
   * included). Absent, or a path absent: read at the checkpoint's shape.
   */
  mxfp4ExpertPad?: Partial<
    Record<'marlin' | 'tritonKernels' | 'trtllmGen' | 'rocm', Mxfp4ExpertPad>
  >;
}
