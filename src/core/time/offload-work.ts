/** Host<->device copies of CPU offload in a training step: parameter, gradient and activation offload. */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { floatParamBytes, trainableElementBytes } from '../memory/trainable-width.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import { type TimeOptions } from '../../schema/time.js';
import { weightBytes, type ModelFacts } from './model-facts.js';
import { recomputeRegathers } from './fsdp-unshard-order.js';
import { backwardRegatherShare } from './zero-collectives.js';
import type { WorkLayout } from './train-work-types.js';

/**
 * Host<->device copies of CPU offload, per micro-batch per rank (train-step.ts times them against compute):
 * - Parameter offload (FSDP CPUOffload(offload_params=True), ZeRO-3 offload_param): each pass that runs a unit
 *   (forward, backward, and the recompute of full checkpointing, as the gathers in commWork) copies its shard to the
 *   device in the dtype it is stored in on the host: FSDP's pre-unshard runs `flat_param._local_shard.to(self.device)`
 *   and only then casts into the low-precision shard (FlatParamHandle._use_low_precision_shard, pytorch/pytorch
 *   torch/distributed/fsdp/_flat_param.py at 01caf79e047fd15e1f75ba3825f789130efa476a), so an fp32 master copy
 *   crosses PCIe as fp32. Quantized linears travel packed; embeddings, output layer and norms at their own dtype
 *   (16-bit, or fp32 where the engine upcasts the non-quantized parameters of a k-bit model: kbitUpcastsToFp32).
 *   Under full recompute DeepSpeed's backward finds the recompute's parameters still fetched where its reuse distance
 *   kept them (its gathers carry the copies: zero-collectives.ts backwardRegatherShare): two passes and that share.
 *   An engine whose checkpoint wrapper sits inside each unit (the profile's recomputeInUnit) copies in two passes:
 *   its recompute runs on the parameters the pre-backward unshard copied.
 *   `passes` counts the SFT step's; an objective's further no-grad forward (a reference, old log-probs) fetches once
 *   more in its own phase (time/objective.ts, train-step.ts forwardFetchSeconds).
 * - Gradients of the trainable parameters go back each backward into a pinned host buffer of the shard's dtype
 *   (`flat_param._cpu_grad = torch.zeros_like(flat_param._local_shard).pin_memory()`, same file,
 *   init_flat_param_attributes; the optimizer steps on the host): the trainable elements' width as memory counts
 *   it, the build's included (memory/trainable-width.ts).
 * - Optimizer-only offload (ZeRO-Offload): the gradients go to the host each backward (arXiv:2101.06840 §4.1); the
 *   updated 16-bit parameters come back during the host step, which the host step outlasts (28 B per parameter
 *   through host memory against 2 B over the link: HOST_ADAM_BYTES_PER_S): not timed apart.
 * - Activation offload: one hidden state per layer per token out in forward, back in backward.
 * FSDP pins the host shard ("Pin the memory for faster H2D transfer", same function) and the DeepSpeed configs
 * vramplan writes set pin_memory: true (engines/hf/deepspeed.ts): copies run at the pinned rate. DeepSpeed pins its
 * host gradient buffers only under `offload_optimizer.pin_memory` (zero/stage3.py grad_partitions_flat_buffer,
 * zero/stage_1_and_2.py single_partition_of_fp32_groups[i].grad, v0.18.3 and v0.19.5), and a run whose config left
 * it at its default (false before v0.19.5) copies its gradients at the pageable share (TimeOptions.pageableGradOffload).
 */
export function offloadWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  w: WorkLayout,
  trainable: number,
  sizes: OffloadSizes = offloadSizes(m, o, t, w, trainable),
) {
  const params = o.offload === 'optimizer+params';
  const optimizerOnly = o.offload === 'optimizer';
  const shardOpt = o.zero >= 1 ? w.zeroRanks : 1;
  return {
    passes: params ? 2 + recomputeGatherPasses(m, o, w, t) : 0,
    paramPassBytes: params ? sizes.stored / w.shard / w.zeroRanks : 0,
    gradBytes: params
      ? sizes.gradBytes / w.zeroRanks
      : optimizerOnly
        ? sizes.gradBytes / shardOpt
        : 0,
    actBytes: o.checkpointing === 'offload' ? w.tokens * w.layersHere * m.hidden * 2 : 0,
  };
}

/**
 * The passes over the sharded parameters that full recompute adds to a micro-batch's forward and backward: none where
 * the checkpoint wrapper sits inside the sharded unit (the profile's recomputeInUnit); under torch's FSDP (no
 * zeroHooks) one whole pass only where the checkpoint re-enters the unit's call under grad (fsdp-unshard-order.ts
 * recomputeRegathers), none under non-reentrant checkpointing; the share ZeRO-3's reuse distance released
 * (zero-collectives.ts backwardRegatherShare); else one whole pass. Gathers (train-comm-work.ts) and offload copies
 * (above) alike.
 */
export function recomputeGatherPasses(
  m: ModelFacts,
  o: EstimateOptions,
  w: WorkLayout,
  t: TimeOptions,
): number {
  const fw = FRAMEWORKS[o.framework];
  if (fw.recomputeInUnit === true || w.recompute === 0) return 0;
  const hooks = fw.zeroHooks;
  if (hooks === undefined) return recomputeRegathers(o, t) ? w.recompute : 0;
  const reuse = hooks.maxReuseDistance;
  if (reuse === undefined) return w.recompute;
  // A per-expert loop's experts are hooked one by one unless the engine's DeepSpeed makes the MoE block a leaf
  // module (zero-hooks.ts zeroHookCounts reads the same).
  const leaf = t.zeroMoeHooked !== true && (hooks.leafMoe?.includes(m.modelType) ?? false);
  return backwardRegatherShare(m, o, reuse, w.moeLoop && !leaf);
}

// A copy from pageable host memory goes through the driver's pinned staging buffer: a host memcpy into it, then the
// DMA (https://developer.nvidia.com/blog/how-optimize-data-transfers-cuda-cc/; NVIDIA's bandwidthTest times pageable
// and pinned copies apart, cuda-samples Samples/1_Utilities/bandwidthTest). With the two stages in series at about the
// link's rate each a copy takes twice as long as from pinned memory; how close they come depends on the host's
// memcpy, which no row states: assumed 0.5 of the pinned rate (calibration/assumed.json).
export const PAGEABLE_COPY_SHARE = 0.5;

/** What offloadWork copies before the data-parallel split: the stored model and a TP/PP shard's gradients, bytes. */
export interface OffloadSizes {
  stored: number;
  gradBytes: number;
}

/** OffloadSizes: the options' dtypes and engine and the layout's TP/PP shard (never the GPU count). */
export function offloadSizes(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  w: WorkLayout,
  trainable: number,
): OffloadSizes {
  const fw = FRAMEWORKS[o.framework];
  // Embeddings, head and norms at the width memory stores them (the build's fp32 k-bit stream included).
  const otherBytes = floatParamBytes(o, fw, t);
  // Every stored linear, the vision tower's included (offload moves the parameters whether or not they run).
  const linears = m.linearTotal + m.towerLinear;
  return {
    stored: linears * weightBytes(o.weights) + (m.total - linears) * otherBytes,
    gradBytes: trainableElementBytes(o, fw, t) * (trainable / w.shard),
  };
}

/**
 * Unsloth's offloaded checkpoints read for their reload (unslothai/unsloth-zoo@8bbbd535
 * unsloth_zoo/gradient_checkpointing.py, unchanged from 2025-10-18 until the double buffering of unslothai/unsloth-zoo#534): a layer's
 * input is offloaded only above MINIMUM_SIZE elements ("Minimum size to enable Unsloth GC is 2MB": 2 MiB of the
 * 16-bit dtype) and never for the last checkpointed layer (LAST_GC_INDEX, after pytorch/torchtune#1443). Forward
 * copies it out on EXTRA_STREAM beside the layer's own compute; backward runs `EXTRA_STREAM.wait_stream(MAIN_STREAM)`,
 * copies it into the one GPU_BUFFER, and `MAIN_STREAM.wait_stream(EXTRA_STREAM)` before the recompute, so each reload
 * starts when the backward before it ends and the layer's recompute starts when it ends: nothing overlaps it.
 */
const OFFLOAD_MIN_BYTES = 2 * 1024 * 1024;

/** Host->device bytes of a micro-batch's checkpoint reloads that run in series with the backward (see above). */
export function serialReloadBytes(m: ModelFacts, o: EstimateOptions, w: WorkLayout): number {
  if (o.checkpointing !== 'offload') return 0;
  const perLayer = w.tokens * m.hidden * 2;
  if (perLayer <= OFFLOAD_MIN_BYTES) return 0;
  return perLayer * Math.max(0, w.layersHere - 1);
}
