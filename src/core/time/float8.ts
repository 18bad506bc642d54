/** FP8 training's work on one rank per micro-batch: the converted matmuls and the casts (kernels/float8.ts). */
import { float8CastBytes } from '../kernels/float8.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { isFloat8Compute, type EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';

export interface Float8Work {
  /** Forward matmul FLOPs of the converted linears (inside fwdGemmFlops). */
  fwdFlops: number;
  /** Backward matmul FLOPs the converted linears run in 8 bits, and those of them bwdGemmFlops counts at 16 bits. */
  bwdFlops: number;
  bwdCounted: number;
  /** Cast traffic of the converted linears' operands, forward and backward, bytes. */
  castFwdBytes: number;
  castBwdBytes: number;
}

const NONE: Float8Work = {
  fwdFlops: 0,
  bwdFlops: 0,
  bwdCounted: 0,
  castFwdBytes: 0,
  castBwdBytes: 0,
};

/**
 * The linears FP8 training converts: every nn.Linear of the layers but the output projection (the torchtitan
 * launcher writes Float8LinearConverter filter_fqns=["lm_head"] / MXFP8LinearConverter fqns=["layers"],
 * torchtitan/launch.ts float8Scope; the routed experts run as grouped GEMMs, which
 * torchao.float8 does not convert). Under TP a column-parallel linear sees its whole input and a row-parallel
 * one its whole grad output, so a rank casts (1 + 1/tp)/2 of each linear's features.
 *
 * Backward runs the input and the weight gradient in 8 bits (2x forward). Under LoRA the base is frozen and the
 * 16-bit estimate counts its input gradient only (train-work.ts computeWork), but torchao's float8 backward
 * computes grad_weight unconditionally and autograd discards it (torchao 0.18.0 float8/float8_linear.py
 * matmul_with_hp_or_float8_args.backward; prototype/moe_training/mxfp8_linear.py mx_mm.backward for MXFP8):
 * the LoRA base still runs both backward GEMMs, and casts both operands of each, in 8 bits.
 */
export function float8Work(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  shard: number,
): Float8Work {
  if (!isFloat8Compute(o.compute)) return NONE;
  const features = (1 + 1 / o.tp) / 2 / o.pp;
  const weights = m.denseLinear / shard;
  const recipe =
    o.compute === 'mxfp8' ? 'mxfp8' : (FRAMEWORKS[o.framework].float8Recipe ?? 'tensorwise');
  const fused = o.compile || FRAMEWORKS[o.framework].fusedKernels;
  const cast = float8CastBytes(
    recipe,
    fused,
    tokens,
    m.denseIn * features,
    m.denseOut * features,
    weights,
  );
  const fwdFlops = 2 * tokens * weights;
  return {
    fwdFlops,
    bwdFlops: 2 * fwdFlops,
    bwdCounted: o.method === 'full' ? 2 * fwdFlops : fwdFlops,
    castFwdBytes: cast.fwd,
    castBwdBytes: cast.bwd,
  };
}
