/**
 * The fsdp_version the hf-fsdp launchers write (engines/hf/accelerate.ts fsdpConfig, engines/hf/axolotl.ts): FSDP1 for
 * bitsandbytes 4-bit weights (rule fsdp2-bnb-4bit: fully_shard corrupts packed 4-bit weights), FSDP2 otherwise; a
 * user's explicit 1 is kept. In the schema layer so that the flags drop a stated version equal to it (absent means
 * what launch writes) and the launchers and the time model read the same predicate.
 */
import type { EstimateOptions } from './estimate.js';

export const launchedFsdpVersion = (o: EstimateOptions): 1 | 2 =>
  o.weights === 'nf4' || o.weights === 'fp4' || o.fsdpVersion === 1 ? 1 : 2;
