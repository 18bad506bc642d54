/**
 * An engine's ZeRO-2 gradient buckets as its code reduces them (FrameworkProfile.zero2BucketReduce; DeepSpeed's in
 * engines/hf/memory.ts, read in deepspeed/runtime/zero/stage_1_and_2.py at v0.14.2 and v0.19.5): the collective's
 * share of the bucket on the wire, the copies its gradient hooks make on the compute stream in backward, and the passes
 * over the bucket on the reduce's stream, in series with its collective. ZeRO-2 reduces every micro-batch, so each is
 * per micro-batch. Only stage 2: stage 1 reduces once a step, after backward, and stage 3 has its own path (stage3.py's
 * reduce_scatter_coalesced). Not counted: a parameter above the bucket size skips the bucket copy
 * (extra_large_param_to_reduce), which only embeddings of 5e8 elements or more reach.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Zero2BucketReduce } from '../memory/trainer-loop-profile.js';

/** The engine's ZeRO-2 bucket reduce where a micro-batch runs one: stage 2 over more than one rank. */
function reducedBuckets(o: EstimateOptions, ranks: number): Zero2BucketReduce | undefined {
  return o.zero === 2 && ranks > 1 ? FRAMEWORKS[o.framework].zero2BucketReduce : undefined;
}

/** Of a reduce-scatter's wire bytes, what the engine's ZeRO-2 collective moves: 2 for an all-reduce, else 1. */
export function zero2WireFactor(o: EstimateOptions, ranks: number): number {
  return reducedBuckets(o, ranks)?.allReduce === true ? 2 : 1;
}

/**
 * HBM bytes of a micro-batch's bucket passes on the reduce's stream: `bucketPasses` over the unsharded gradients and
 * `ownSlicePasses` over this rank's 1/ranks of them (`unshardedBytes`: the gradients the buckets take, at the reduce
 * width). 0 on one rank (nothing to reduce: DeepSpeed's reduce path still runs there, left out as for FSDP).
 */
export function zero2BucketPassBytes(
  o: EstimateOptions,
  unshardedBytes: number,
  ranks: number,
): number {
  const z = reducedBuckets(o, ranks);
  return z === undefined
    ? 0
    : z.bucketPasses * unshardedBytes + (z.ownSlicePasses * unshardedBytes) / ranks;
}

/** HBM bytes of a micro-batch's gradient hooks copying each gradient into its bucket, on the compute stream. */
export function zero2HookCopyBytes(
  o: EstimateOptions,
  unshardedBytes: number,
  ranks: number,
): number {
  const z = reducedBuckets(o, ranks);
  return z === undefined ? 0 : z.hookCopyPasses * unshardedBytes;
}
