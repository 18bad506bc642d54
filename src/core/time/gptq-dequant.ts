/** auto-gptq's QuantLinear dequantizing a GPTQ int4 weight in torch ops, as its training path ran it. */
import type { EstimateOptions } from '../../schema/estimate.js';
import { forwardLinears, type ModelFacts } from './model-facts.js';

// auto-gptq's "cuda-old" QuantLinear (the one GPTQConfig(disable_exllama=True) loads for desc_act False checkpoints)
// multiplies an input of at least kernel_switch_threshold (128) rows, or any input when built trainable, by
// dequantizing the whole weight in torch ops and calling torch.matmul (AutoGPTQ/AutoGPTQ@179776bd1d97a2e7f84b72318630f43719647a11
// auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py QuantLinear.forward). Per weight element: bitwise_right_shift of
// the expanded packed int32 (reads 0.5 B, writes an int32: 4), .to(int8) (4 + 1), the in-place bitwise_and (1 + 1),
// the zero-point subtraction (1 + 1) and the fp16 scale multiply (1 + 2): 16.5 B before the GEMM reads the result.
const GPTQ_TORCH_DEQUANT_BYTES = 16.5;

/**
 * Bytes one micro-batch moves dequantizing every GPTQ linear that way: once per forward, again in the recompute of
 * checkpointing; the backward reuses the fp16 weight autograd saved for the input gradient.
 */
export function gptqTorchDequantBytes(
  m: ModelFacts,
  o: EstimateOptions,
  recompute: number,
  shard: number,
): number {
  return ((1 + recompute) * GPTQ_TORCH_DEQUANT_BYTES * forwardLinears(m, o)) / shard;
}
