/**
 * When an FSDP unit's all-gather runs in series with the pass that needs it (TrainWork.fwdGatherSerial,
 * TrainWork.bwdGatherSerial; priced in train-step.ts commTimes). FSDP issues a unit's all-gather from the unit's own
 * hooks, on the host, and overlaps it only with the GPU work queued before it; a per-expert loop that syncs the host
 * once per expert (its `torch.where`: train-step.ts SYNCED_LOOP_OP_SECONDS) leaves nothing queued once its last expert
 * has run, so a gather issued right after such a loop waits alone.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import { type TimeOptions } from '../../schema/time.js';
import { runsFsdp2 } from './fsdp2-copies.js';

/**
 * Whether a forward pass's parameter gathers run in series with its compute. An FSDP unit (a framework without
 * DeepSpeed's trace-driven prefetch: no FrameworkProfile.zeroHooks) issues its all-gather from its own pre-forward
 * hook; FSDP1 adds the next unit's only under forward_prefetch (torch/distributed/fsdp/_runtime_utils.py
 * `_pre_forward_unshard`, `_get_handle_to_prefetch`, pytorch/pytorch v2.4.1), so a gather overlaps the unit before
 * it only because the CPU runs ahead of the GPU. A per-expert loop syncs the host once per expert, so the CPU reaches
 * the next unit's hook only when the last expert has run: each unit's all-gather waits for the unit before it.
 * Backward keeps its overlap unless backwardGathersInSeries says otherwise. DeepSpeed's ZeRO-3 prefetches from its
 * recorded trace inside each fetch, before the module's kernels (partitioned_param_coordinator.py fetch_sub_module),
 * and is not held.
 */
export function forwardGathersInSeries(
  o: EstimateOptions,
  t: TimeOptions,
  gatherPassBytes: number,
  loopOps: number,
): boolean {
  if (gatherPassBytes === 0 || loopOps === 0 || t.fsdpForwardPrefetch === true) return false;
  return FRAMEWORKS[o.framework].zeroHooks === undefined;
}

/**
 * Whether the backward's own all-gather of each FSDP1 unit runs in series with its compute: full recompute through
 * torch's reentrant checkpoint at the model's call site (TimeOptions.reentrantCheckpoint: transformers'
 * `gradient_checkpointing_enable` passes `use_reentrant: True` when given no kwargs, modeling_utils.py in the 4.45.2
 * and 4.48.1 wheels, and checkpoints `decoder_layer.__call__`, the FSDP-wrapped unit) and a per-expert loop that syncs
 * the host. In torch 2.4.1's FSDP1 (torch/distributed/fsdp/_runtime_utils.py): the checkpointed forward runs under
 * no_grad, so `_register_pre_backward_hooks` returns before marking the unit `_needs_pre_backward_unshard`, and
 * `_get_handle_to_prefetch` (BACKWARD_PRE) prefetches only a unit so marked: backward prefetches nothing. In backward
 * the recompute's `_pre_forward_unshard` gathers the unit (the host runs ahead of the later unit's backward kernels,
 * which it overlaps), `_post_forward_reshard` frees it again (`_reshard` clears `_prefetched`), and the pre-backward
 * hook the recompute registered gathers it a third time and makes the compute stream wait for it (`wait_stream`) before
 * the unit's backward kernels: issued right after the recompute's synced loop, that gather has no queued work to hide
 * behind. FSDP2, the checkpoint wrapper inside the unit (FrameworkProfile.recomputeInUnit) and non-reentrant
 * checkpointing (the pre-backward hook on the forward's outputs, the recompute on its gather) are not held.
 */
export function backwardGathersInSeries(
  o: EstimateOptions,
  t: TimeOptions,
  gatherPassBytes: number,
  loopOps: number,
  recompute: number,
): boolean {
  if (gatherPassBytes === 0 || loopOps === 0 || recompute === 0) return false;
  if (t.reentrantCheckpoint !== true || o.checkpointing === 'selective' || runsFsdp2(o, t))
    return false;
  const fw = FRAMEWORKS[o.framework];
  return fw.zeroHooks === undefined && fw.recomputeInUnit !== true;
}

/**
 * Whether torch's FSDP gathers each unit a third time a micro-batch for the recompute of a checkpoint at the unit's
 * call site (FSDP1 and FSDP2 alike; time/offload-work.ts recomputeGatherPasses). Forward gathers a unit in its
 * pre-forward and frees it after (FULL_SHARD / reshard_after_forward); backward's pre-backward hook, registered on the
 * forward's outputs, gathers it again and sets the unit's handle to BACKWARD_PRE (FSDP2: the state to PRE_BACKWARD).
 * - Non-reentrant checkpointing (torch/utils/checkpoint.py `_checkpoint_without_reentrant_generator`): the forward
 *   runs under grad, so the hooks are registered, and the recompute starts inside backward when autograd unpacks a
 *   saved tensor of the layer's last op, after the output's hook ran; FSDP1's `_pre_forward` and `_post_forward`
 *   return at once in BACKWARD_PRE ("For `fully_shard` + `checkpoint`, skip pre-forward logic in the recomputed
 *   forward", torch/distributed/fsdp/_runtime_utils.py, torch 2.4.1 and 2.11.0) and FSDP2's in PRE_BACKWARD
 *   (torch/distributed/_composable/fsdp/_fsdp_state.py in 2.4.1, torch/distributed/fsdp/_fully_shard/_fsdp_state.py in
 *   2.11.0): the recompute runs on backward's gather. Two gathers a micro-batch, as without checkpointing.
 * - Reentrant (TimeOptions.reentrantCheckpoint, or the engine's own checkpoint: FrameworkProfile.reentrantCheckpoint):
 *   the forward runs under no_grad, so `_register_pre_backward_hooks` (FSDP2: `_register_pre_backward_hook`) returns
 *   before registering anything, the recompute's pre-forward finds the unit idle and gathers it, its post-forward frees
 *   it and registers the hook, which gathers it a third time (backwardGathersInSeries above).
 * Wrapping inside the unit (recomputeInUnit) never re-enters FSDP's hooks. DeepSpeed's hooks are zero-collectives.ts's.
 */
export function recomputeRegathers(o: EstimateOptions, t: TimeOptions): boolean {
  return t.reentrantCheckpoint ?? FRAMEWORKS[o.framework].reentrantCheckpoint === true;
}
