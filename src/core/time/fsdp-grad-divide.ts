/**
 * torch FSDP's gradient division passes around each unit's reduce-scatter (docs/time-model.md "FSDP's gather count
 * and gradient division"). FSDP1's `_reduce_grad` (torch/distributed/fsdp/_runtime_utils.py, torch 2.4.1 and 2.11.0)
 * runs `_div_if_needed(padded_unsharded_grad, _gradient_predivide_factor)` before the reduce-scatter and
 * `_div_if_needed(new_sharded_grad, _gradient_postdivide_factor)` after it, each an in-place `div_` (a kernel of its
 * own) where its factor exceeds 1, on the post-backward stream the reduce-scatter waits on. The factors come from
 * `DefaultState._get_gradient_predivide_factor(world_size)` (torch/distributed/algorithms/_comm_hooks/default_hooks.py):
 * the smallest power of two f with world_size / f <= f (world_size % f == 0 kept), and world_size / f after. FSDP2
 * (`_get_gradient_divide_factors`, torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py in 2.11.0,
 * torch/distributed/_composable/fsdp/_fsdp_collectives.py in 2.4.1) divides inside NCCL (ReduceOp.AVG) for a float32 or
 * bfloat16 reduce and runs the same two passes only for a float16 one. DeepSpeed's hooks divide their own way
 * (not here).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { runsFsdp2 } from './fsdp2-copies.js';

/** FSDP1's pre-divide factor for `n` data-parallel ranks (default_hooks.py `_get_gradient_predivide_factor`). */
export function predivideFactor(n: number): number {
  let f = 1;
  while (n % f === 0 && n / f > f) f *= 2;
  return f;
}

/**
 * HBM bytes a micro-batch's division passes read and write on one rank: 2 x the unsharded gradient's bytes where the
 * pre-divide factor exceeds 1, 2 x the shard's where the post-divide factor does. `unshardedBytes`: the gradients the
 * reduce-scatter takes, at the reduce width; `ranks`: the sharding group; `fp16Reduce`: the reduce runs in float16.
 */
export function gradDivideBytes(
  o: EstimateOptions,
  t: TimeOptions,
  unshardedBytes: number,
  ranks: number,
  fp16Reduce: boolean,
): number {
  if (ranks <= 1 || o.zero < 2 || FRAMEWORKS[o.framework].zeroHooks !== undefined) return 0;
  if (runsFsdp2(o, t) && !fp16Reduce) return 0;
  const pre = predivideFactor(ranks);
  const post = ranks / pre;
  return (pre > 1 ? 2 * unshardedBytes : 0) + (post > 1 ? (2 * unshardedBytes) / ranks : 0);
}
