/**
 * The longest sequence that fits a GPU: a binary search over estimateMemory on `seq` (fits = deviceBytes ≤
 * the GPU's memory). Device bytes grow with the sequence (every activation, logit and transient is per
 * token or grows with it), so the largest fitting length is found in log2(limit) estimates. `build`: what a
 * published run's stack ran beyond the flags, the same context validate gives a memory case. Pure.
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { EstimateContext } from './types.js';
import { estimateMemory } from './memory.js';
import { fitDeviceBytes } from './paged.js';

/** Searched no further: 2^24 tokens, far beyond any published context (0 when even one token does not fit). */
export const MAX_CONTEXT_LIMIT = 2 ** 24;

/** What a measured build ran beyond the flags (validate's buildContextOf, docs/memory-model.md). */
export type MeasuredBuild = Pick<
  EstimateContext,
  | 'eagerLoss'
  | 'lossCompiledAlone'
  | 'adamForeach'
  | 'gradsFreedEachStep'
  | 'kbitFp32Stream'
  | 'shiftedLogitsCopy'
>;

export function longestFittingSeq(
  arch: Arch,
  o: EstimateOptions,
  gpuBytes: number,
  build: MeasuredBuild = {},
  limit = MAX_CONTEXT_LIMIT,
): number {
  const fits = (seq: number): boolean =>
    fitDeviceBytes(estimateMemory(arch, { ...o, seq }, { ...build, lean: true })) <= gpuBytes;
  if (!fits(1)) return 0;
  if (fits(limit)) return limit;
  let lo = 1; // fits
  let hi = limit; // does not fit
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** One published longest-sequence row beside vramplan's (validate's "max context" section). */
export interface MaxContextRow {
  id: string;
  model: string;
  gpuMemoryGiB: number;
  method: string;
  engine: string;
  publishedMaxTokens: number;
  estimatedMaxTokens: number;
  /** (estimated - published) / published. */
  error: number;
  /** Why the row is reported apart rather than scored (absent: scored). */
  reportedApart?: string;
}
