/**
 * Host RAM per node a plan needs: offloaded states (memory.ts hostBytesPerGpu, summed over the node's
 * GPUs), DeepSpeed's pinned staging buffers, and the peak while loading the checkpoint. The planner prunes
 * plans over `hardware.hostRamGiB` (reason host-ram); without it, DEFAULT_HOST_RAM applies.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions, WeightDtype } from '../../schema/estimate.js';
import { engineOf } from '../engines/engine.js';
import { ENGINE_PROFILES } from '../engines/store.js';
import type { Arch } from '../model/arch.js';
import { quantConstantBytes, valueBytes } from '../model/dtypes.js';
import { paramCounts } from '../model/params.js';
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
  /** Offloaded states, parameters, gradient shards (FSDP, ZeRO-3) and host checkpoints of the node's GPUs. */
  offloadBytes: number;
  /** Pinned staging buffers on top of the offloaded states. */
  pinnedBytes: number;
  /** Checkpoint bytes held on the host while loading. */
  loadingBytes: number;
  efficientLoading: boolean;
}

/**
 * What loading reads of one model, the same for every plan of it (the planner builds it once, so its per-row host
 * check allocates nothing): see loadingPeak.
 */
export interface ModelLoad {
  /** The checkpoint as loaded (checkpointBytes). */
  checkpointBytes: number;
  /** The model has routed experts: the layer-by-layer 4-bit loaders take dense models only. */
  routedExperts: boolean;
  /** The model as a layer-by-layer NF4 loader keeps it on local rank 0's host (shardedQuantHostBytes). */
  quantizedBytes: number;
  /** Its largest safetensors file: Arch.safetensorsFileBytes where the headers gave it, else SAFETENSORS_FILE_BYTES. */
  fileBytes: number;
}

/** The ModelLoad of `arch` with `params` loaded parameters (ParamCounts.total). */
export function modelLoadOf(arch: Arch, params: number): ModelLoad {
  return {
    checkpointBytes: checkpointBytes(arch, params),
    routedExperts: arch.groups.some((g) => g.experts > 1),
    quantizedBytes: shardedQuantHostBytes({ total: params, linear: paramCounts(arch).linear }),
    fileBytes: arch.safetensorsFileBytes ?? SAFETENSORS_FILE_BYTES,
  };
}

/** Host RAM of one node: max(loading peak, offloaded states + pinned buffers). */
export function hostRamOf(
  engine: Engine,
  zero: number,
  gpusOnNode: number,
  hostBytesPerGpu: number,
  weights: WeightDtype | undefined,
  load: ModelLoad,
): HostRam {
  const offloadBytes = hostBytesPerGpu * gpusOnNode;
  const pinnedBytes = offloadBytes * pinnedShare(engine);
  const loadingBytes = loadingPeak(engine, zero, gpusOnNode, weights, load);
  return {
    perNodeBytes: Math.max(loadingBytes, offloadBytes + pinnedBytes),
    offloadBytes,
    pinnedBytes,
    loadingBytes,
    efficientLoading: efficientLoading(engine, zero, gpusOnNode),
  };
}

/** hostRamOf's perNodeBytes without building its record (the planner asks per row and GPU). */
export function hostRamPerNode(
  engine: Engine,
  zero: number,
  gpusOnNode: number,
  hostBytesPerGpu: number,
  weights: WeightDtype | undefined,
  load: ModelLoad,
): number {
  const offloadBytes = hostBytesPerGpu * gpusOnNode;
  const loading = loadingPeak(engine, zero, gpusOnNode, weights, load);
  return Math.max(loading, offloadBytes + offloadBytes * pinnedShare(engine));
}

/**
 * Checkpoint bytes the node holds while loading. A layer-by-layer 4-bit loader (shardedQuantWeights, ZeRO-3, dense
 * models) keeps the quantized model on local rank 0's host, `load.quantizedBytes` (shardedQuantHostBytes), while
 * every process holds the one safetensors file it is quantizing (at most `load.fileBytes`):
 * load_sharded_model_quant reads each file whole with safetensors.torch.load_file on every rank, quantizes its
 * tensors on the rank's GPU and moves them to the CPU (local rank 0) or meta (axolotl-0.19.0 wheel
 * utils/model_shard_quant.py L244-L264, load_and_quantize L111-L117; the loop of answerdotai/fsdp_qlora train.py).
 * The whole 16-bit checkpoint is never held.
 */
function loadingPeak(
  engine: Engine,
  zero: number,
  gpusOnNode: number,
  weights: WeightDtype | undefined,
  load: ModelLoad,
): number {
  const ckpt = load.checkpointBytes;
  if (shardedQuantLoad(weights, engine, zero, load.routedExperts))
    return load.quantizedBytes + gpusOnNode * Math.min(ckpt, load.fileBytes);
  if (streamedLoad(weights, engine)) return 0;
  return heldWhileLoading(engine, ckpt, gpusOnNode, efficientLoading(engine, zero, gpusOnNode));
}

/**
 * Largest safetensors file of a sharded Hub checkpoint where its headers were not read (catalog models: the
 * catalog stores no file sizes): save_pretrained's max_shard_size default, "10GB" in the
 * transformers 4.x releases that saved Llama-2 (Llama-2-70b-hf: 15 files of about 9.2 GB,
 * https://huggingface.co/meta-llama/Llama-2-70b-hf/tree/main), "5GB" in later 4.x (Llama-3.1-70B: 30 files,
 * https://huggingface.co/meta-llama/Llama-3.1-70B/tree/main): the larger bound. transformers 5.14.1 defaults to
 * "50GB" (modeling_utils.py save_pretrained L3418): a checkpoint it re-saved holds larger files.
 */
export const SAFETENSORS_FILE_BYTES = 10e9;

/**
 * Bytes of the model as a layer-by-layer NF4 loader keeps it on local rank 0's host: the layers' linear weights as
 * double-quantized NF4 (axolotl's load_sharded_model_quant hard-codes quant_type "nf4", compress_statistics=True:
 * utils/model_shard_quant.py L199-L210), everything else (embeddings, lm_head, norms, biases) cast to quant_storage,
 * the run's 16-bit torch_dtype (loaders/model.py L1020; place_on_device L83-L88).
 */
export function shardedQuantHostBytes(params: { total: number; linear: number }): number {
  const nf4 = params.linear * valueBytes('nf4') + quantConstantBytes('nf4', params.linear, 1, true);
  return nf4 + (params.total - params.linear) * 2;
}

/**
 * Whether the base weights are loaded with a per-rank device_map (the profile's streamedWeights, at any ZeRO stage:
 * under FSDP / ZeRO-3 the 4-bit quantizer sets it itself, engines/hf/memory.ts BNB_4BIT_LOADS_WHOLE): transformers
 * materialises each checkpoint tensor straight onto the device_map's device, the CPU only where none is given
 * (convert_and_load_state_dict_in_model's spawn_materialize, src/transformers/core_model_loading.py @0086c243), so
 * no whole copy is held on the host.
 */
function streamedLoad(weights: WeightDtype | undefined, engine: Engine): boolean {
  if (weights === undefined) return false;
  return ENGINE_PROFILES[engine].hostLoading?.streamedWeights?.includes(weights) ?? false;
}

/** Whether the engine loads these base weights layer by layer onto local rank 0's host (dense models, ZeRO-3). */
function shardedQuantLoad(
  weights: WeightDtype | undefined,
  engine: Engine,
  zero: number,
  routedExperts: boolean,
): boolean {
  if (weights === undefined || zero < 3 || routedExperts) return false;
  return ENGINE_PROFILES[engine].hostLoading?.shardedQuantWeights?.includes(weights) ?? false;
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
  arch: Arch,
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
    o.weights,
    modelLoadOf(arch, params),
  );
}
