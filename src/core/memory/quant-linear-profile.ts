import type { WeightDtype } from '../../schema/estimate.js';
import type { Mxfp4ExpertProfile } from './mxfp4-expert-profile.js';

/**
 * How an engine runs its quantized weights' kernels (FrameworkProfile): the MXFP4 experts' layout
 * (Mxfp4ExpertProfile) and, for the plain (non-Marlin) int4 linears, the tokens at which they leave their fused GEMM.
 */
export interface QuantLinearProfile extends Mxfp4ExpertProfile {
  /**
   * The most tokens the engine's plain AWQ linear multiplies in its fused int4 GEMM (`awq_gemm`, which unpacks the
   * weight in registers); from one token more it dequantizes the weight to a 16-bit copy and runs a 16-bit GEMM.
   * Absent: the AWQ kernel family's crossover (time/decode.ts KERNELS.awq, AutoAWQ's).
   */
  awqGemmMaxTokens?: number;
  /**
   * Quantized checkpoint formats whose vision tower the engine loads in 16 bits: the quantizer leaves the tower out
   * (quantization_config modules_to_not_convert / ignore) and the engine gives the layers it names an unquantized
   * linear. Absent, or a format not listed: the tower's linears are stored like the text model's.
   */
  floatTowerWeights?: readonly WeightDtype[];
  /**
   * Releases whose int4 Marlin MoE (AWQ or GPTQ experts) launches one GEMM kernel per expert the rank holds, routed
   * tokens or not, for each of the layer's two expert GEMMs (gate-up, down): those before `before`
   * (TimeOptions.engineVersion; a run whose release is not given is not priced so). `kernelsPerCall`: each GEMM
   * call's kernels beside the per-expert ones. Priced by time/per-expert-moe.ts. Absent: one fused MoE kernel a GEMM.
   */
  perExpertMarlinMoe?: { before: string; kernelsPerCall: number };
}
