/**
 * Host RAM per node a plan needs: offloaded states (memory.ts hostBytesPerGpu, summed over the node's
 * GPUs), DeepSpeed's pinned staging buffers, and the peak while loading the checkpoint. The planner prunes
 * plans over `hardware.hostRamGiB` (reason host-ram); without it, DEFAULT_HOST_RAM applies.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions, WeightDtype } from '../../schema/estimate.js';
import { engineOf } from '../engines/engine.js';
import { ENGINE_PROFILES } from '../engines/store.js';
import { GiB } from '../units.js';

/**
 * Default host RAM per node: twice the node's GPU memory, at least 64 GiB. Workstation builders recommend
 * system RAM of at least twice the total VRAM (Puget Systems, https://www.pugetsystems.com/solutions/ai-and-hpc-workstations/machine-learning-ai/hardware-recommendations/);
 * cloud 8-GPU nodes have more (AWS p5.48xlarge: 2 TiB for 640 GB of H100, https://aws.amazon.com/ec2/instance-types/p5/).
 */
export function defaultHostRamBytes(gpuMemoryBytesPerNode: number): number {
  return Math.max(64 * GiB, 2 * gpuMemoryBytesPerNode);
}

/**
 * Whether only one process per node materialises the checkpoint: one process, or an engine that loads it once
 * per node (its profile's hostLoading: Accelerate FSDP's cpu_ram_efficient_loading, DeepSpeed ZeRO-3 zero.Init,
 * meta-device init + sharded load). Otherwise (DDP, ZeRO-1/2) every process loads the whole model on the host
 * before moving it to its GPU.
 */
export function efficientLoading(engine: Engine, zero: number, processesOnNode: number): boolean {
  if (processesOnNode <= 1) return true;
  const once = ENGINE_PROFILES[engine].hostLoading?.onePerNode ?? 'never';
  return once === 'always' || (once === 'zero3' && zero === 3);
}

export interface HostRam {
  /** Peak host RAM on the busiest node. */
  perNodeBytes: number;
  /** Offloaded states and host checkpoints of the node's GPUs. */
  offloadBytes: number;
  /** Pinned staging buffers on top of the offloaded states. */
  pinnedBytes: number;
  /** Checkpoint bytes held on the host while loading. */
  loadingBytes: number;
  efficientLoading: boolean;
}

/** Host RAM of one node: max(loading peak, offloaded states + pinned buffers). */
export function hostRamOf(
  engine: Engine,
  zero: number,
  gpusOnNode: number,
  hostBytesPerGpu: number,
  checkpointBytes: number,
  weights?: WeightDtype,
  routedExperts = false,
): HostRam {
  const offloadBytes = hostBytesPerGpu * gpusOnNode;
  const pinnedBytes = offloadBytes * pinnedShare(engine);
  const efficient = efficientLoading(engine, zero, gpusOnNode);
  const loadingBytes = streamedLoad(weights, engine, zero, routedExperts)
    ? 0
    : heldWhileLoading(engine, checkpointBytes, gpusOnNode, efficient);
  return {
    perNodeBytes: Math.max(loadingBytes, offloadBytes + pinnedBytes),
    offloadBytes,
    pinnedBytes,
    loadingBytes,
    efficientLoading: efficient,
  };
}

/** hostRamOf's perNodeBytes without building its record (the planner asks per row and GPU). */
export function hostRamPerNode(
  engine: Engine,
  zero: number,
  gpusOnNode: number,
  hostBytesPerGpu: number,
  checkpointBytes: number,
  weights?: WeightDtype,
  routedExperts = false,
): number {
  const efficient = efficientLoading(engine, zero, gpusOnNode);
  const offloadBytes = hostBytesPerGpu * gpusOnNode;
  const loading = streamedLoad(weights, engine, zero, routedExperts)
    ? 0
    : heldWhileLoading(engine, checkpointBytes, gpusOnNode, efficient);
  return Math.max(loading, offloadBytes + offloadBytes * pinnedShare(engine));
}

/**
 * Whether the base weights are loaded with a per-rank device_map (the profile's streamedWeights, at any ZeRO stage:
 * under FSDP / ZeRO-3 the 4-bit quantizer sets it itself, engines/hf/memory.ts BNB_4BIT_LOADS_WHOLE): transformers
 * materialises each checkpoint tensor straight onto the device_map's device, the CPU only where none is given
 * (convert_and_load_state_dict_in_model's spawn_materialize, src/transformers/core_model_loading.py @0086c243), so
 * no whole copy is held on the host.
 */
function streamedLoad(
  weights: WeightDtype | undefined,
  engine: Engine,
  zero: number,
  routedExperts: boolean,
): boolean {
  if (weights === undefined) return false;
  const h = ENGINE_PROFILES[engine].hostLoading;
  // A layer-by-layer loader keeps the quantized model on rank 0's host (shardedQuantWeights, dense models only), and
  // each rank holds the safetensors file it reads (safetensors.torch.load_file): the one-16-bit-copy-per-node
  // figure stands in for both.
  if (zero >= 3 && !routedExperts && h?.shardedQuantWeights?.includes(weights) === true)
    return false;
  return h?.streamedWeights?.includes(weights) ?? false;
}

/** Pinned staging buffers as a share of the offloaded states (the engine's offloadBufferFactor less one). */
const pinnedShare = (engine: Engine): number =>
  (ENGINE_PROFILES[engine].hostLoading?.offloadBufferFactor ?? 1) - 1;

/**
 * Checkpoint bytes the node holds while loading: one copy with efficient loading, one per GPU without. A streamed
 * checkpoint sits in the page cache, not in a held copy: what stays on the host is the offloaded states.
 */
function heldWhileLoading(
  engine: Engine,
  checkpointBytes: number,
  gpusOnNode: number,
  efficient: boolean,
): number {
  if (ENGINE_PROFILES[engine].hostLoading?.streamed ?? false) return 0;
  return checkpointBytes * (efficient ? 1 : gpusOnNode);
}

/**
 * Bytes loading holds on the host: the loaded model's parameters (ParamCounts.total) in the stored dtype. MTP
 * layers the files also store do not count: transformers materialises only keys the model has and lists the
 * rest as unexpected, never reading them (convert_and_load_state_dict_in_model, src/transformers/
 * core_model_loading.py @0086c243); serving engines stream (below).
 */
export function checkpointBytes(arch: { dtype: string }, params: number): number {
  return params * (arch.dtype === 'float32' ? 4 : 2);
}

/**
 * GPUs per node where nothing says (a launch from flags, `explain`): an 8-GPU node, as `launch` writes and as
 * HGX/DGX servers carry (https://www.nvidia.com/en-us/data-center/hgx/).
 */
export const DEFAULT_GPUS_PER_NODE = 8;

/**
 * The one host-RAM figure of a configuration: its busiest node's peak, from the options,
 * the estimate's host bytes per GPU and the GPUs on one node. The planner's Plan.hostRam, `explain` and the
 * launch README all call this, so the table, explain, the explorer, --json and the README show one number.
 */
export function hostRamOfOptions(
  arch: { dtype: string; groups?: readonly { experts: number }[] },
  o: EstimateOptions,
  params: number,
  hostBytesPerGpu: number,
  gpusPerNode: number = DEFAULT_GPUS_PER_NODE,
): HostRam {
  const onNode = Math.max(1, Math.min(o.gpus, gpusPerNode));
  return hostRamOf(
    engineOf(o),
    o.zero,
    onNode,
    hostBytesPerGpu,
    checkpointBytes(arch, params),
    o.weights,
    arch.groups?.some((g) => g.experts > 1) ?? false,
  );
}
