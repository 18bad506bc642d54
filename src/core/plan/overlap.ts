/** Which configurations' step times rest on host copies hidden behind compute. */
import type { EstimateOptions } from '../../schema/estimate.js';

/**
 * Parameter offload (ZeRO-3 / FSDP `optimizer+params`) and checkpoint offload copy every pass's weights or
 * hidden states over PCIe while that pass computes; the time model hides each copy behind its own pass and
 * exposes only the first unit and what outlasts the pass (time/train-step.ts offloadExposed). Whatever share it
 * hides rests on that overlap, which no calibration row confirms: a plan or fix with either offload says so,
 * however small its exposed offload phase. Optimizer-only offload (ZeRO-Offload) overlaps its gradient copies
 * with backward as the ZeRO-Offload paper designs and measures (arXiv:2101.06840 §4.1, §6): not flagged.
 */
export const restsOnHiddenCopies = (o: EstimateOptions): boolean =>
  o.offload === 'optimizer+params' || o.checkpointing === 'offload';

/** The plan note for such a configuration (plan text and JSON `notes`). */
export const HIDDEN_COPIES_NOTE =
  'its time assumes the host copies of its parameter or checkpoint offload hide behind compute (assumed, not measured)';
