/** The KV cache's dtype in a plan's technique text, where it differs from the compute dtype. */
import type { Plan } from '../core/plan/index.js';

/**
 * "KV fp8" for a plan whose KV cache is fp8 (llama.cpp's is q8_0: schema/estimate.ts KV_CACHE_DTYPES), null
 * where the cache is in the compute dtype: rows that differ only in it then read differently.
 */
export const kvText = (p: Plan): string | null =>
  p.options.kvCacheDtype === 'fp8'
    ? `KV ${p.choices.engine === 'llama.cpp' ? 'q8_0' : 'fp8'}`
    : null;
