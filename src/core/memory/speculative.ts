/** Speculative decoding's memory: the draft's weights and the KV cache of its layers, per GPU. */
import type { LayerGroup } from '../model/arch.js';
import { draftArch, draftParams } from '../model/speculative.js';
import { valueBytes } from '../model/dtypes.js';
import type { Setup } from './setup.js';

/** The draft's decoder layers on the last pipeline stage (none without speculative decoding or for n-gram). */
export function draftGroups(s: Setup): LayerGroup[] {
  const m = s.o.speculative;
  if (!m) return [];
  return draftArch(s.arch, m)?.groups ?? [];
}

/**
 * The draft's weights per GPU, split over TP as the target's: an EAGLE-3 head in 16 bits (the published heads
 * are bf16 checkpoints), the MTP layers in the checkpoint's dtype.
 */
export function draftWeightBytes(s: Setup): number {
  const m = s.o.speculative;
  if (!m) return 0;
  const bytes = m === 'mtp' ? valueBytes(s.o.weights) : s.c;
  return (draftParams(s.arch, m) * bytes) / s.tp;
}
