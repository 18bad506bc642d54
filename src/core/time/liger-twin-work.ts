/**
 * A Liger twin's count-free work from its pair's (the planner's rows of one configuration and layout with and without
 * Liger's kernels: plan/liger-twins.ts): a memo over countFreeWork, which makes the same work from scratch.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { computeWork, moeDispatchOf, workLayout, type CountFreeWork } from './train-work.js';

/**
 * countFreeWork(m, o, t) where `free` is the CountFreeWork of options that differ from `o` only in Liger's kernels
 * (o.liger) at the same time options: Liger enters the work through the layout's `liger` flag alone (train-work.ts
 * workLayout), which computeWork alone reads (its elementwise passes, launches and fused loss), so the rest is `free`'s.
 * Written field by field in countFreeWork's order, for the same hidden class.
 */
export function ligerTwinFreeWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  free: CountFreeWork,
): CountFreeWork {
  return {
    cw: computeWork(m, o, workLayout(m, o, moeDispatchOf(m, o, t)), t),
    qw: free.qw,
    ew: free.ew,
    aw: free.aw,
    f8: free.f8,
    zh: free.zh,
    paged: free.paged,
    offload: free.offload,
    trainable: free.trainable,
  };
}
