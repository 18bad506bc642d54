/**
 * Paged optimizer states that do not all fit on the GPU: what their page migration costs each step.
 *
 * bitsandbytes (0.50.1, 37d2a9387f7146ccb85517ff45c665d345bfda79) allocates the states of a parameter of ≥ 1e5
 * elements with cudaMallocManaged (csrc/pythonInterface.cpp cget_managed_ptr). Its step() walks the parameters
 * in the same order every step, and for each one calls cudaMemPrefetchAsync to the GPU on both states
 * (prefetch_state → functional.py prefetch_tensor → cprefetch), runs the update kernel and waits for it
 * (utils.py sync_gpu: torch.cuda.synchronize), so nothing of the copy hides behind compute
 * (GlobalPageManager.prefetch_all is commented out of step()). A prefetch into a full card makes the UVM driver
 * evict a root chunk (2 MB) to host RAM first: the head of its LRU list, where a chunk goes to the tail when it
 * is allocated, not when it is read (NVIDIA/open-gpu-kernel-modules@448d5cc65624d3aa69015efa0d3fb50fd9729f41
 * kernel-open/nvidia-uvm/uvm_pmm_gpu.c: the header comment on eviction, root_chunk_update_eviction_list and
 * pick_root_chunk_to_evict). A pass in a fixed order over more states than the card holds therefore always
 * evicts the chunk migrated longest ago, the one needed next: every state misses once per step (cyclic
 * thrashing under LRU; Park, Kim, Han, "Page Reuse in Cyclic Thrashing of GPU Under Oversubscription", CASES
 * 2020, https://openreview.net/forum?id=uOEK9wCIY3). So a step that spills migrates all its paged states in and
 * as many bytes out (they were written, and migration moves pages rather than copying them); one that does not
 * spill moves nothing (no overhead while all of it fits on the device, bitsandbytes
 * docs/source/explanations/optimizers.mdx at the same tag).
 * Rate: bitsandbytes' docs (docs/source/explanations/optimizers.mdx at the same tag) put a manual prefetch at
 * about half the full PCIe bandwidth or less (measured on PCIe 3.0 x16) and price a step that evicts 1 GB at
 * 1/(16 x 0.5) s, 125 ms, on that link: the evicted bytes at half the link's x16 rate, here all the states once
 * a step (the migrations in run on a copy channel of their own: UVM_CHANNEL_TYPE_CPU_TO_GPU beside
 * UVM_CHANNEL_TYPE_GPU_TO_CPU, NVIDIA/open-gpu-kernel-modules@54d69484da940413ba6017df9cf43bed8b75da46
 * kernel-open/nvidia-uvm/uvm_channel.h).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';
import { largestTensor, optimizerStateBytes } from '../memory/optimizer-states.js';
import { PCIE_EFF, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/** A GPU's paged optimizer states and the working set one parameter's step needs on the device, bytes. */
export interface PagedWork {
  pagedStateBytes: number;
  pagedWorkingBytes: number;
}

/**
 * The paged states of one GPU (none for a non-paged optimizer or states stepped on the host), as the memory
 * model counts them (memory.ts evalStage): the trainable states over the parameter and optimizer shards; the
 * working set is the largest tensor's states in a full fine-tune, all of them for adapters.
 */
export function pagedWork(
  m: ModelFacts,
  o: EstimateOptions,
  trainable: number,
  lora: boolean,
  shards: number,
): PagedWork {
  return pagedWorkAt(pagedStates(m, o, trainable, lora), shards);
}

/**
 * pagedWork before the shards: the trainable states of all GPUs and, in a full fine-tune, the largest tensor's
 * states (null: none paged). It reads the options' optimizer, offload and dtypes, never the GPU count.
 */
export interface PagedStates {
  total: number;
  /** The largest tensor's states; null for adapters, whose working set is all of their states. */
  largest: number | null;
}

export function pagedStates(
  m: ModelFacts,
  o: EstimateOptions,
  trainable: number,
  lora: boolean,
): PagedStates | null {
  if (OPTIMIZER_PROFILES[o.optimizer].paged !== true || o.offload !== 'none' || trainable <= 0)
    return null;
  return {
    total: optimizerStateBytes(o, trainable, m.arch, !lora),
    largest: lora ? null : optimizerStateBytes(o, largestTensor(m.arch), m.arch, true),
  };
}

/** pagedWork of `states` (pagedStates) over `shards` parameter and optimizer shards. */
export function pagedWorkAt(states: PagedStates | null, shards: number): PagedWork {
  if (!states) return { pagedStateBytes: 0, pagedWorkingBytes: 0 };
  const bytes = states.total / shards;
  const working = states.largest === null ? bytes : Math.min(bytes, states.largest);
  return { pagedStateBytes: bytes, pagedWorkingBytes: working };
}

/**
 * Whether the paged states spill on a GPU of `capacity` bytes: the device figure the fit checks (which counts
 * only the working set) plus the rest of the states exceeds the card (memory/paged.ts withPagedResidency).
 */
export const pagedSpills = (w: PagedWork, fitDeviceBytes: number, capacity: number): boolean =>
  w.pagedStateBytes > 0 && fitDeviceBytes - w.pagedWorkingBytes + w.pagedStateBytes > capacity;

// Share of the x16 link a bitsandbytes prefetch reaches: bitsandbytes-foundation/bitsandbytes@37d2a9387f7146ccb85517ff45c665d345bfda79 docs/source/explanations/optimizers.mdx.
export const UVM_PREFETCH_SHARE = 0.5;

/** Seconds a spilled step spends migrating its paged states: all of them, at half the link's x16 rate. */
export const pagedMigrationSeconds = (w: PagedWork, r: GpuRates): number =>
  w.pagedStateBytes / ((r.host / PCIE_EFF) * UVM_PREFETCH_SHARE);
