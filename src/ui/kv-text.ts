/** The KV cache's dtype in a plan's technique text, where it differs from the compute dtype. */
import type { Plan } from '../core/plan/index.js';
import { engineDef } from '../core/engines/registry.js';

/**
 * "KV fp8" for a plan whose KV cache is fp8 (or the type its engine writes instead: the memory profile's
 * cacheLayout.fp8KvType, llama.cpp's q8_0), null where the cache is in the compute dtype: rows that differ only
 * in it then read differently.
 */
export const kvText = (p: Plan): string | null =>
  p.options.kvCacheDtype === 'fp8'
    ? `KV ${engineDef(p.choices.engine).memory.cacheLayout?.fp8KvType ?? 'fp8'}`
    : p.options.kvCacheDtype === 'q4_0'
      ? 'KV q4_0'
      : null;
