/**
 * Where an engine's launch loads its quantized base layer by layer instead of whole on every rank
 * (FrameworkProfile.shardedQuantLoad): one predicate for the memory model (memory.ts, the load phase) and the
 * launcher that writes the loader's key (engines/hf/distribution.ts axolotlShardedLoad).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './framework-profile.js';

/**
 * The engine's layer-by-layer load for these weights, at ZeRO-3 over more than one rank; a model with routed
 * experts loads whole where the loader takes dense models only (`denseOnly`). Undefined: the engine's own load.
 */
export function shardedQuantLoadOf(
  fw: FrameworkProfile,
  o: Pick<EstimateOptions, 'weights' | 'zero'>,
  arch: { groups: readonly { experts: number }[] },
  dp: number,
): FrameworkProfile['shardedQuantLoad'] {
  const l = fw.shardedQuantLoad;
  if (l === undefined || !l.weights.includes(o.weights) || o.zero < 3 || dp <= 1) return undefined;
  return l.denseOnly && arch.groups.some((g) => g.experts > 1) ? undefined : l;
}
