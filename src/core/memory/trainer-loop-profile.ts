/** Profile shapes of a trainer's own loop around the model (memory/framework-profile.ts). */

import type { EstimateOptions } from '../../schema/estimate.js';
import type { ZeroHooksProfile } from './zero-hooks-profile.js';

/**
 * What a library's per-expert MoE loop moves around each hit expert's matmuls: hidden-wide passes a routed row in
 * forward and in backward, a token in forward, and bytes per token, routed slot and expert of the router's expert mask
 * (time/moe-loop-traffic.ts).
 */
export interface MoeLoopTraffic {
  rowFwdPasses: number;
  rowBwdPasses: number;
  tokenFwdPasses: number;
  maskBytes: number;
}

/**
 * The gradient-norm clip a trainer runs every optimizer step (FrameworkProfile.gradClip). `normAllReduce`: the norm of
 * the local shards is all-reduced, one scalar collective per mesh dimension the gradients are sharded over
 * (time/optimizer-step.ts gradClipAllReduces), in series with the step.
 */
export interface GradClip {
  normRead: 'stepped' | 'grad';
  normCopyBytes: number;
  scalePasses: number;
  normAllReduce?: boolean;
}

/**
 * How an engine's ZeRO-2 reduces a micro-batch's gradient buckets (FrameworkProfile.zero2BucketReduce,
 * time/zero2-bucket-reduce.ts): `allReduce`, each bucket all-reduced (2(n - 1)/n of it on the wire a rank) where a
 * reduce-scatter moves (n - 1)/n; `hookCopyPasses`, HBM passes over every gradient on the compute stream in backward
 * (the copy into the contiguous bucket); `bucketPasses`, passes over the whole bucket on the reduce's stream (the
 * averaging and the flattening copy); `ownSlicePasses`, passes over this rank's 1/n of it after the collective (the
 * copy back and into its partition). Absent: a reduce-scatter and no passes of its own (FSDP's SHARD_GRAD_OP:
 * time/fsdp-grad-divide.ts).
 */
export interface Zero2BucketReduce {
  allReduce: boolean;
  hookCopyPasses: number;
  bucketPasses: number;
  ownSlicePasses: number;
}

/** What an engine's sharded data parallelism runs around the model (FrameworkProfile's training-side fields). */
export interface ShardedTrainingProfile {
  /**
   * Time: context parallelism runs as Ulysses (time/train-sequence-parallel.ts): all-to-alls around each attention
   * turn the rank's sequence shard of every head into every position of its heads' shard and back. Absent: torch's
   * ring attention (its K/V rotation is not timed).
   */
  cpAllToAll?: true;
  /** Time: the engine's ZeRO hooks (DeepSpeed's: ZeroHooksProfile). Absent: none (FSDP gathers whole units). */
  zeroHooks?: ZeroHooksProfile;
  zero2BucketReduce?: Zero2BucketReduce; // Time: ZeRO-2's bucket collective and copies. Absent: a reduce-scatter
  /** Time: the engine's FSDP for these options is FSDP2 (torch's `fully_shard`), whose copies on the compute stream
   * time/fsdp2-copies.ts prices. Absent: never (FlatParameter FSDP1, DeepSpeed's ZeRO, or no FSDP). */
  fsdp2?: (o: EstimateOptions) => boolean;
  recomputeInUnit?: boolean; // full recompute runs inside each sharded unit, on its backward's gather (time/train-comm-work.ts)
  reentrantCheckpoint?: true; // its own layer checkpoint is reentrant: FSDP gathers for the recompute (time/fsdp-unshard-order.ts)
}
