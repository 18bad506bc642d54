/** `validate`'s KV-cache section: calibration/kv-cache.json beside the estimate's KV bytes per token. */
import { buildEstimate } from '../core/estimate.js';
import { GiB } from '../core/units.js';
import { caseArch, loadKvCacheCases } from '../io/load-calibration.js';
import { optionsFromFlags } from '../schema/flags.js';
import type { KvCacheRow } from '../core/memory/index.js';

/** Every vLLM startup log row with the estimate's KV bytes per token per GPU. */
export function kvCacheRows(file = 'kv-cache.json'): KvCacheRow[] {
  return loadKvCacheCases(file).map((c) => {
    const options = optionsFromFlags(c.flags);
    const measured = (c.pool_gib * GiB) / c.tokens;
    const estimated = buildEstimate(caseArch(c), options).cache?.kvBytesPerToken ?? 0;
    return {
      id: c.id,
      model: c.model_hf_id ?? c.config_file,
      tp: options.tp,
      measuredBytesPerToken: Math.round(measured),
      estimatedBytesPerToken: estimated,
      error: (estimated - measured) / measured,
    };
  });
}
