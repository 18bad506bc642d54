/**
 * FSDP2's copies on the compute stream (torch's `fully_shard`, torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py
 * at pytorch/pytorch@010ae4a8). `foreach_all_gather_copy_out` waits for a unit's
 * all-gather on the current stream and copies the gathered buffer into each parameter's unsharded tensor
 * (`split_with_sizes_copy`): the unit's unsharded bytes read once and written once per gather. `foreach_reduce` copies
 * the unit's unsharded gradients into the reduce-scatter input on the current stream (`_chunk_cat`, "Only after the
 * copy-in finishes can we free the gradients"), before the reduce-scatter stream waits for it: the gradients read at
 * their own width (the unsharded parameters', MixedPrecisionPolicy's param_dtype) and written at the reduce width
 * once per reduce (a narrowing reduce dtype's extra copy through a temporary is not priced). Both sit in series with
 * the pass's kernels. FSDP1's FlatParameter
 * all-gathers into the flat parameter its views point into and copies nothing out (torch/distributed/fsdp/
 * _flat_param.py); its backward's concatenation of the views' gradients and DeepSpeed's copies into its reduce bucket
 * and coalesced gathers' `torch.cat` are not priced (docs/time-model.md "FSDP2's copies on the compute stream").
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { ModelFacts } from './model-facts.js';
import { shardedUnsharded } from './train-expert-parallel.js';
import type { WorkLayout } from './train-work-types.js';

/** Bytes of HBM traffic FSDP2's copies move per micro-batch: each gather's copy-out, each reduce's copy-in. */
export interface Fsdp2Copies {
  /** One gather pass's copy-out (read and write of the gathered parameters). */
  passBytes: number;
  /** A micro-batch's copy-outs over its gather passes. */
  gatherBytes: number;
  /** A micro-batch's reduce-scatter copy-in (the gradients read at their width, written at the reduce width). */
  reduceBytes: number;
}

const NO_COPIES: Fsdp2Copies = { passBytes: 0, gatherBytes: 0, reduceBytes: 0 };

/**
 * Whether the run's FSDP is FSDP2: the run says so (TimeOptions.fsdp2, a row's `fsdp_version`), else the engine
 * profile decides for the options (FrameworkProfile.fsdp2: torchtitan, torchtune and Unsloth's native FSDP2 always,
 * hf-fsdp where its launcher writes fsdp_version 2); never an engine that shards with DeepSpeed's ZeRO hooks.
 */
export function runsFsdp2(o: EstimateOptions, t: TimeOptions): boolean {
  const p = FRAMEWORKS[o.framework];
  if (p.zeroHooks !== undefined) return false;
  return t.fsdp2 ?? p.fsdp2?.(o) ?? false;
}

/**
 * FSDP2's copies of one micro-batch. `storeBytes`: a gathered parameter's width (packed for QLoRA); `gathers`: the
 * micro-batch's gather passes (commWork's); `trainable`: the trainable elements the reduce-scatter carries, read at
 * `gradIn` bytes and written at `gradOut`. None without FSDP2, on one rank, or without ZeRO-2/3 sharding.
 */
export function fsdp2Copies(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  w: WorkLayout,
  sizes: {
    storeBytes: number;
    gathers: number;
    trainable: number;
    gradIn: number;
    gradOut: number;
  },
): Fsdp2Copies {
  if (!runsFsdp2(o, t) || o.zero < 2 || w.zeroRanks <= 1) return NO_COPIES;
  const passBytes = o.zero === 3 ? 2 * shardedUnsharded(m, o, w, m.total) * sizes.storeBytes : 0;
  return {
    passBytes,
    gatherBytes: sizes.gathers * passBytes,
    reduceBytes: shardedUnsharded(m, o, w, sizes.trainable) * (sizes.gradIn + sizes.gradOut),
  };
}
