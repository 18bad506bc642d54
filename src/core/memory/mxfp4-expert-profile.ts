import type { QuantFormat } from '../../schema/time.js';

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

/** The MXFP4 expert padding of each kernel path vramplan runs: Marlin, TensorRT-LLM-gen and AMD GPUs'. */
export interface Mxfp4ExpertProfile {
  /**
   * The routed experts' padded shape, which a decode step's expert GEMMs read in full (the pad's zeros included) and
   * the GPU holds (memory/mxfp4-pad-bytes.ts). Absent, or a path absent: the checkpoint's shape.
   */
  mxfp4ExpertPad?: Partial<Record<'marlin' | 'trtllmGen' | 'rocm', Mxfp4ExpertPad>>;
  /**
   * Where the engine upcasts the routed experts to BF16 at load, on a CUDA card of compute capability `cc` at expert
   * parallelism `ep` (no MXFP4 MoE runner of its launch takes them there): memory holds and time reads a BF16 model,
   * its experts through the BF16 fused MoE (time/mxfp4-upcast.ts). Absent, or false: held as MXFP4.
   */
  mxfp4UpcastExperts?: (cc: number, ep: number) => boolean;
  /**
   * Compute capability majors from 10 on where the engine's default MXFP4 MoE backend is Marlin, not an FP4
   * tensor-core kernel: the step is timed as Marlin there (time/decode.ts kernelOn) and the experts held at Marlin's
   * pad (time/mxfp4-pad.ts). Absent: FP4 tensor cores on every card from 10.0.
   */
  mxfp4MarlinMajors?: readonly number[];
}

/**
 * The card and the kernel an MXFP4 MoE step runs on (EstimateContext.mxfp4Kernel), which pick the kernel path whose
 * padded shape the engine allocates (time/mxfp4-pad.ts): its compute capability (0 on AMD), whether it is an AMD
 * GPU and the kernel family the step takes (time/decode.ts stepKernel).
 */
export interface Mxfp4KernelContext {
  cc: number;
  rocm: boolean;
  kernel: QuantFormat | null;
}
