/**
 * An engine's decode kernels beyond the counted chain (FrameworkProfile.decodeFeatureKernels). `sharedExpertBeside`:
 * the MoE layers' shared expert runs on a second stream beside the router and routed experts, so its linears'
 * activation kernels are off the step's critical path (not counted per block-FP8 linear).
 */
export interface DecodeFeatureKernels {
  mlaLayer: number;
  sharedExpert: number;
  biasedRouter: { modelTypes: readonly string[]; kernels: number };
  blockFp8Linear: number;
  blockFp8PadSm90: number;
  blockFp8Moe: number;
  sharedExpertBeside?: boolean;
}
