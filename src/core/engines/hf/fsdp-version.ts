/**
 * Which FSDP the hf-fsdp engine runs: what its launchers write (accelerate.ts fsdpConfig, axolotl.ts) unless the
 * user's own config says otherwise (`--fsdp-version`, or `fsdp_version` read by `--from`).
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import { launchedFsdpVersion } from '../../../schema/fsdp-version.js';

/**
 * The FSDP the estimate prices: the run's own fsdp_version where the user's config states it (accelerate's
 * FullyShardedDataParallelPlugin defaults it to 1, accelerate v1.14.0 utils/dataclasses.py; `--from` fills it in),
 * else what the launchers write.
 */
export const hfFsdpVersion = (o: EstimateOptions): 1 | 2 => o.fsdpVersion ?? launchedFsdpVersion(o);
