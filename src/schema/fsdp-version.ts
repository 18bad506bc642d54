/**
 * The fsdp_version the hf-fsdp launchers write (engines/hf/accelerate.ts fsdpConfig, engines/hf/axolotl.ts): FSDP1 for
 * bitsandbytes 4-bit weights (rule fsdp2-bnb-4bit: fully_shard corrupts packed 4-bit weights), FSDP2 otherwise; a
 * user's explicit 1 is kept. In the schema layer so that the flags drop a stated version equal to it (absent means
 * what launch writes) and the launchers and the time model read the same predicate.
 */
import type { EstimateOptions } from './estimate.js';
import { enginesWith, frameworksWith } from './engine.js';
import { FlagError } from './flag-error.js';

export const launchedFsdpVersion = (o: EstimateOptions): 1 | 2 =>
  o.weights === 'nf4' || o.weights === 'fp4' || o.fsdpVersion === 1 ? 1 : 2;

/**
 * `--fsdp-version`: accelerate's fsdp_version (FullyShardedDataParallelPlugin, accelerate v1.14.0
 * utils/dataclasses.py), only on engines whose launcher writes it and only over FSDP's sharding stages. The version
 * launch writes anyway is the default: dropped, so a launched folder read back gives the plan's options.
 */
export function fsdpVersionCheck(o: EstimateOptions): void {
  if (o.fsdpVersion === undefined) return;
  const fsdp = frameworksWith('fsdpVersion');
  if (!fsdp.includes(o.framework) || o.zero < 2)
    throw new FlagError(
      'fsdp-version',
      o.fsdpVersion,
      `off with --framework ${o.framework} --zero ${o.zero} (accelerate's fsdp_version sets the FSDP of ${enginesWith('fsdpVersion').join(', ')} at --zero 2 or 3)`,
    );
  if (o.fsdpVersion === launchedFsdpVersion({ ...o, fsdpVersion: undefined })) delete o.fsdpVersion;
}
