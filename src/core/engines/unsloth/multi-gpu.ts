/**
 * Unsloth on several GPUs, as the pinned release runs it: the profile's data-parallel sets (estimate, the planner
 * and launch-multi.ts read them). Read in the unsloth 2026.10.9 wheel (its GitHub source past 2026.8.19 was not
 * readable here); each line below names the wheel's file and line.
 *
 * - DDP (`--zero 0`): torchrun / accelerate launch of the same script; every rank holds the whole model.
 *   Trainer patches (models/_ddp_defaults.py) set `ddp_find_unused_parameters=False` for a plain LoRA under
 *   checkpointing and, for full fine-tunes, `gradient_as_bucket_view=True`: the gradients are views into
 *   DDP's all-reduce buckets, one copy instead of two (_ddp_defaults.py:298-306).
 * - FSDP2 (`UNSLOTH_FSDP2=1` under torchrun): Unsloth's own `fully_shard` wrap (models/fsdp2_native.py) with
 *   MixedPrecisionPolicy(param_dtype = compute dtype, reduce_dtype = float32) (fsdp2_native.py:1556). Its layout
 *   (models/fsdp2_perf.py plan_fsdp2_layout:141-230) is picked by memory unless UNSLOTH_FSDP2_LAYOUT forces it:
 *   - "fit" (the model takes at most 0.4 of one GPU): frozen weights replicated as under DDP, 4-bit bases
 *     included; trainable weights, their gradients and optimizer states sharded, the trainable weights kept
 *     gathered from forward to backward (reshard_after_forward False): FSDP's SHARD_GRAD_OP, `--zero 2`;
 *   - "sharded" (otherwise, or with CPU offload): every block sharded and resharded after forward, the root
 *     unit (embeddings, final norm, lm_head) kept gathered (fsdp2_perf.py:404-405): FULL_SHARD, `--zero 3`.
 *     bitsandbytes 4-bit bases are sharded as float-packed bytes and all-gathered packed
 *     (models/fsdp2_qlora.py:1-21); 8-bit LLM.int8 weights stay replicated (fsdp2_native.py:674-685).
 *   bitsandbytes 8-bit optimizers step the local shards (models/fsdp2_bnb_optim.py:1-21).
 */
import type { EstimateOptions } from '../../../schema/estimate.js';

/** The release read, and the wheel each source line below is in. */
export const UNSLOTH_WHEEL = 'https://pypi.org/project/unsloth/2026.10.9/ (wheel) unsloth';

// DDP under torchrun ran at 2026.8.19 already (its Trainer banner prints "Data Parallel GPUs", llama.py:2893
// there); models/_ddp_defaults.py first ships in the 2026.10.6 wheel, fsdp2_launch.py / fsdp2.py (accelerate's
// FSDP2) in 2026.10.7, fsdp2_native.py / fsdp2_perf.py (the native wrap and its layouts) in 2026.10.8.
export const UNSLOTH_DDP_VERSIONS = '>=2026.10.6,<=2026.10.9';
export const UNSLOTH_FSDP2_VERSIONS = '>=2026.10.8,<=2026.10.9';

/** The profile's data-parallel sets: what Unsloth runs on several GPUs (profile.ts). */
export const UNSLOTH_MULTI_GPU_RUNS = {
  // torchrun with any world size: DDP, or UNSLOTH_FSDP2=1 (fsdp2_launch.py:49-70).
  maxDp: Infinity,
  // 0: DDP; 2: FSDP2's fit layout; 3: its sharded layout (fsdp2_perf.py:141-230). No ZeRO-1 analogue.
  zero: [0, 2, 3] as const,
  // Float-packed bnb 4-bit shards (fsdp2_qlora.py:1-21); int8 stays replicated, fp4 is not built (rule
  // unsloth-4bit-is-nf4).
  shardedQuantized: ['nf4'] as const,
  // fsdp2_bnb_optim.py: bitsandbytes Adam / AdamW step each rank's local shard.
  bnbOptimizersSharded: true,
  // Native FSDP2 (UNSLOTH_FSDP2=1) is an opt-in the 2026.10.9 wheel reads (fsdp2_launch.py:41-70) but no Unsloth
  // guide describes: its multi-GPU page documents Accelerate / DeepSpeed and DDP and calls official multi-GPU
  // support upcoming (https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth.md). DDP is its guide's path.
  zeroUndocumented: [2, 3] as const,
  // Both guides launch on one machine: `accelerate launch train.py` (multi-gpu-training-with-unsloth.md) and
  // `torchrun --nproc_per_node=2 unsloth-cli.py ...`, "If you have more GPUs, you may set --nproc_per_node
  // accordingly" (https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp.md); neither names --nnodes.
  oneMachineDocumented: true,
};

/**
 * FSDP2's CPU offload (UNSLOTH_FSDP2_CPU_OFFLOAD=1: FSDP2Config.from_env, fsdp2_native.py:76, 147-149) applies torch's
 * CPUOffloadPolicy (fsdp2_native.py:1559-1561): parameters and gradients on the host, the optimizer stepping
 * there, always in the sharded layout (fsdp2_perf.py:183-189). What estimate accepts beyond the profile: torch's
 * own optimizers step host tensors (bitsandbytes' need CUDA ones).
 */
export const UNSLOTH_FSDP2_OFFLOAD_RUNS = {
  offload: { 'optimizer+params': [3] },
  offloadOptimizers: ['adamw', 'sgd', 'sgd-momentum', 'adafactor'],
} as const;

/** Where the multi-GPU modes come from (the source a refusal of the parallel set cites). */
export const UNSLOTH_PARALLEL_SOURCE = `${UNSLOTH_WHEEL}/models/fsdp2_perf.py:141-230, fsdp2_launch.py:49-70, models/_ddp_defaults.py:289-318`;

/** The note an estimate on several GPUs carries: which Unsloth launch the figures are. */
export function unslothParallelNote(o: EstimateOptions, dp: number): string | null {
  if (dp <= 1) return null;
  if (o.zero === 0)
    return `unsloth on ${dp} GPUs: DDP under torchrun, the whole model on every GPU${o.method === 'full' ? ' (full fine-tune: gradient_as_bucket_view, no second gradient copy)' : ''} (${UNSLOTH_WHEEL}/models/_ddp_defaults.py:289-318)`;
  const offload =
    o.offload === 'optimizer+params'
      ? ', with UNSLOTH_FSDP2_CPU_OFFLOAD=1 (parameters, gradients and the optimizer step on the host)'
      : '';
  const layout =
    o.zero === 2
      ? 'fit layout (UNSLOTH_FSDP2_LAYOUT=fit: frozen weights replicated, trainable weights, gradients and optimizer states sharded)'
      : 'sharded layout (UNSLOTH_FSDP2_LAYOUT=sharded: every block sharded, resharded after forward)';
  return `unsloth on ${dp} GPUs: native FSDP2 (UNSLOTH_FSDP2=1 under torchrun), its ${layout}${offload}; left to itself (UNSLOTH_FSDP2_LAYOUT=auto) Unsloth picks the fit layout when the model takes at most 40% of one GPU, else the sharded one (${UNSLOTH_WHEEL}/models/fsdp2_perf.py:141-230)`;
}
