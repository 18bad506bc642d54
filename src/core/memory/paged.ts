/**
 * Paged optimizer states (bitsandbytes paged-adamw, paged-adamw-8bit): where they live, and what the fit needs.
 *
 * bitsandbytes 0.50.1 (37d2a9387f7146ccb85517ff45c665d345bfda79) allocates each state of a parameter of
 * ≥ 1e5 elements with cudaMallocManaged (csrc/pythonInterface.cpp cget_managed_ptr; optim/optimizer.py
 * get_state_buffer), and each step prefetches the parameter's states to the GPU with cudaMemPrefetchAsync
 * (optimizer.py step() → prefetch_state → functional.py prefetch_tensor → cprefetch). Nothing pages them back
 * (GlobalPageManager.prefetch_all is never called): paging "only becomes active if you run out of GPU memory",
 * and "a paged optimizer has zero overhead if all the memory fits onto the device" (docs/source/explanations/
 * optimizers.mdx, "Paged optimizers", at the same tag).
 * So a step needs only the working set on the device (it fits because it pages), while nvidia-smi shows every
 * state that still has room: min(all states, what the card has free after everything else).
 */
import type { MemoryEstimate } from './types.js';

export type { PagedStates } from './types.js';

/**
 * Place the paged states of an estimate whose deviceBytes holds only their working set: on a GPU of
 * `capacity` bytes, as many as the card has free after everything else (at least the working set); without a
 * GPU, all of them (nothing presses them out).
 */
export function withPagedResidency(m: MemoryEstimate, capacity?: number): MemoryEstimate {
  const p = m.paged;
  if (!p) return m;
  const fit = m.perGpu.deviceBytes;
  const free = capacity === undefined ? Infinity : capacity - (fit - p.workingSetBytes);
  const resident = Math.min(p.statesBytes, Math.max(p.workingSetBytes, free));
  const extra = Math.max(0, Math.round(resident - p.workingSetBytes));
  const b = m.perGpu.breakdown;
  return {
    ...m,
    perGpu: {
      ...m.perGpu,
      deviceBytes: fit + extra,
      breakdown: { ...b, optimizer: b.optimizer + extra },
    },
    hostBytesPerGpu: Math.max(0, m.hostBytesPerGpu - extra),
    paged: {
      statesBytes: p.statesBytes,
      workingSetBytes: p.workingSetBytes,
      deviceBytes: p.workingSetBytes + extra,
      hostBytes: Math.max(0, p.statesBytes - p.workingSetBytes - extra),
      fitDeviceBytes: fit,
    },
  };
}

/** The device bytes the fit verdict compares with a capacity (paged states: only their working set). */
export const fitDeviceBytes = (m: MemoryEstimate): number =>
  m.paged ? m.paged.fitDeviceBytes : m.perGpu.deviceBytes;

/** Host RAM per GPU when every paged state beyond the working set is paged out (the most it can take). */
export const fitHostBytes = (m: MemoryEstimate): number =>
  m.paged ? m.hostBytesPerGpu + m.paged.deviceBytes - m.paged.workingSetBytes : m.hostBytesPerGpu;

/** Whether paged states were placed on a card too small for all of them (some sit in host RAM). */
export const pagedStatesSpill = (m: MemoryEstimate): boolean => (m.paged?.hostBytes ?? 0) > 0;
