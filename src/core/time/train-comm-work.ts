/** Bytes each rank moves over links per step of a training micro-batch (train-work.ts trainWork). */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { gradReduceElementBytes } from '../memory/trainable-width.js';
import { trainableSet } from '../model/trainable.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import { type TimeOptions } from '../../schema/time.js';
import { weightBytes, type ModelFacts } from './model-facts.js';
import { offloadWork, recomputeGatherPasses, type OffloadSizes } from './offload-work.js';
import { shardedUnsharded, shardedWire } from './train-expert-parallel.js';
import { gradDivideBytes } from './fsdp-grad-divide.js';
import {
  zero2BucketPassBytes,
  zero2HookCopyBytes,
  zero2WireFactor,
} from './zero2-bucket-reduce.js';
import { fsdp2Copies } from './fsdp2-copies.js';
import type { WorkLayout } from './train-work-types.js';

/** Bytes each rank moves over links per step: gathers, gradient reduces, offload copies, TP all-reduces. */
export function commWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  w: WorkLayout,
  trainable: number,
  sizes?: OffloadSizes,
) {
  const { zeroRanks, tp, shard, tokens, layersHere, recompute } = w;
  const zero = o.zero;
  // The width the engine reduces gradients in (FrameworkProfile.gradReduce): the adapters' or weights' own
  // gradient dtype, the compute dtype, or a fixed reduce dtype.
  // A build whose FSDP1 MixedPrecision set reduce_dtype float32 (TimeOptions.fsdpReduceFp32) reduce-scatters at 4 bytes.
  const fp32Reduce = fsdpFp32Reduce(o, t);
  const gradDtype = fp32Reduce ? 4 : gradReduceElementBytes(o, FRAMEWORKS[o.framework], t);
  // ZeRO-3 / FSDP FULL_SHARD: all-gather the weights for forward, again for backward, and once more for the recompute
  // of full activation checkpointing where a reentrant checkpoint at the call site re-enters the unit
  // reshard_after_forward freed (fsdp-unshard-order.ts recomputeRegathers); none under non-reentrant checkpointing or
  // where the checkpoint wrapper sits inside the unit, the recompute running on the backward's gather (the profile's
  // recomputeInUnit: torchtune, torchtitan), every micro-batch
  // (https://pytorch.org/docs/stable/fsdp.html, FULL_SHARD). ZeRO-3's hooks keep the recompute's parameters for the
  // backward where the trace reuses them within the engine's maxReuseDistance (zero-collectives.ts
  // backwardRegatherShare; calibration/measured/zero3-collectives-cpu.json).
  // FSDP mixed precision gathers in param_dtype; QLoRA weights travel packed (fsdp_qlora quant_storage).
  const storeBytes = o.weights === 'fp32' ? (o.compute === 'fp32' ? 4 : 2) : weightBytes(o.weights);
  const wire = (n: number) => (n - 1) / n;
  const gathersPerMicro = 2 + recomputeGatherPasses(m, o, w, t);
  // DDP all-reduce moves 2(n-1)/n of the buffer; reduce-scatter (ZeRO-2/3) (n-1)/n (ZeRO §7); EP: shardedWire.
  const pass = zero === 3 && zeroRanks > 1 ? shardedWire(m, o, w, m.total) * storeBytes : 0;
  const off = offloadWork(m, o, t, w, trainable, sizes);
  const offloadBytes = off.passes * off.paramPassBytes + off.gradBytes + 2 * off.actBytes;
  // Megatron TP: 2 all-reduces per layer forward, 2 backward, 2 more when recomputing, of tokens x hidden.
  const tpCalls = tp > 1 ? (4 + 2 * recompute) * layersHere : 0;
  const copies = fsdp2Copies(m, o, t, w, {
    storeBytes,
    gathers: gathersPerMicro,
    trainable,
    // Unsharded gradients come at the gathered parameters' compute width (MixedPrecisionPolicy param_dtype).
    gradIn: o.compute === 'fp32' ? 4 : 2,
    gradOut: gradDtype,
  });
  // The gradients the buckets take, unsharded, at the reduce width (FSDP's division and DeepSpeed's ZeRO-2 passes).
  const unshardedGrad = shardedUnsharded(m, o, w, trainable) * gradDtype;
  return {
    fsdpCopyPassBytes: copies.passBytes,
    fsdpCopyGatherBytes: copies.gatherBytes,
    fsdpCopyReduceBytes: copies.reduceBytes,
    // On the reduce's stream: FSDP's division passes, or the engine's ZeRO-2 bucket passes (zero2-bucket-reduce.ts).
    gradDivideBytes:
      gradDivideBytes(o, t, unshardedGrad, zeroRanks, gradDtype === 2 && o.compute === 'fp16') +
      zero2BucketPassBytes(o, unshardedGrad, zeroRanks) +
      (fp32Reduce ? fp32ReduceCastBytes(shardedUnsharded(m, o, w, trainable), zeroRanks) : 0),
    gradHookCopyBytes: zero2HookCopyBytes(o, unshardedGrad, zeroRanks),
    gatherBytes: gathersPerMicro * pass,
    gatherPassBytes: pass,
    // ZeRO-2 under an engine that all-reduces its buckets moves twice a reduce-scatter's bytes (zero2-bucket-reduce.ts).
    gradReduceBytes:
      zeroRanks > 1
        ? shardedWire(m, o, w, trainable) *
          gradDtype *
          (zero >= 2 ? zero2WireFactor(o, zeroRanks) : 2)
        : 0,
    gradReducePerMicro: zero >= 2,
    lastBucketEmbedBytes: zeroRanks > 1 ? ddpEmbeddingBucketBytes(m, o, gradDtype, tp) : 0,
    paramGatherAfterStep:
      zeroRanks > 1 && (zero === 1 || zero === 2) ? (trainable / shard) * 2 * wire(zeroRanks) : 0,
    offloadBytes,
    offloadParamPassBytes: off.paramPassBytes,
    offloadPasses: off.passes,
    offloadGradBytes: off.gradBytes,
    offloadActBytes: off.actBytes,
    tpCalls,
    tpBytes: tp > 1 ? tpCalls * tokens * m.hidden * 2 * 2 * wire(tp) : 0,
  };
}

/**
 * Whether the run's FSDP reduce-scatters float32 gradients under 16-bit compute (TimeOptions.fsdpReduceFp32): FSDP1
 * with a MixedPrecision reduce_dtype of float32, sharded (ZeRO-2/3), training in bf16 or fp16.
 */
export function fsdpFp32Reduce(o: EstimateOptions, t: TimeOptions): boolean {
  return t.fsdpReduceFp32 === true && o.zero >= 2 && o.compute !== 'fp32';
}

/**
 * HBM bytes of FSDP1's two casts around a float32 reduce on one rank, on the post-backward stream: the unsharded
 * 16-bit gradient read (2 B) and written as float32 (4 B) before the reduce-scatter (`flat_param.grad.to(reduce_dtype)`),
 * then the float32 shard read and written at the parameter's float32 (`_cast_grad_to_param_dtype`, a no-op copy where
 * the dtypes match: 0 B). `unshardedElements`: the gradients the reduce-scatter takes; `ranks`: the sharding group.
 */
export function fp32ReduceCastBytes(unshardedElements: number, ranks: number): number {
  return ranks > 1 ? unshardedElements * (2 + 4) : 0;
}

/**
 * The input embedding's gradient in torch DDP's last bucket, 0 where it does not train or DDP does not reduce it.
 * DDP's Reducer buckets the parameters in reverse registration order, at most bucket_cap_mb (25 MB) a bucket, a larger
 * tensor closing the bucket it joins (torch/nn/parallel/distributed.py `_compute_bucket_assignment_by_size`), and after
 * the first step rebuilds them in the order their gradients became ready (reducer.cpp `rebuild_buckets`); it launches
 * the buckets' all-reduces in bucket order (reducer.cpp `mark_bucket_ready`). The embedding is the model's first op, so
 * its weight's AccumulateGrad fires last in backward (a tied output head's gradient waits for it: one tensor): the last
 * bucket holds the whole vocab x hidden gradient and starts only when backward ends.
 */
function ddpEmbeddingBucketBytes(
  m: ModelFacts,
  o: EstimateOptions,
  gradDtype: number,
  tp: number,
): number {
  const reducer = (FRAMEWORKS[o.framework].gradReduce?.unsharded ?? 'grad') === 'grad';
  if (o.zero !== 0 || !reducer || !trainableSet(o).embed) return 0;
  return (m.vocab * m.hidden * gradDtype) / tp;
}
