/**
 * The context an estimate runs at: the model's config bounds it (max_position_embeddings, or the rope-scaled
 * length it declares: model/structure.ts), unless the engine scales RoPE itself (runs.ts extendsContext). Past
 * the positions the model was trained for, the estimate runs with a warning.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Arch } from '../model/arch.js';
import { assertStructure, maxContext } from '../model/structure.js';
import { ENGINE_RUNS } from './engines-runs.js';

/** assertStructure on `engine` (flag errors as it throws them); returns the warnings for the context. */
export function assertEngineStructure(arch: Arch, o: EstimateOptions, engine: Engine): string[] {
  const limit = maxContext(arch);
  const extends_ = ENGINE_RUNS[engine].extendsContext;
  if (extends_ && o.seq > limit) {
    assertStructure(arch, { ...o, seq: limit });
    return [
      `--seq ${o.seq} is past the ${limit} positions ${arch.id}'s config declares: ${extends_}; the model was not trained at this length`,
    ];
  }
  assertStructure(arch, o);
  if (o.seq <= arch.maxPositions) return [];
  if (arch.unboundedPositions)
    return [
      `--seq ${o.seq} is past the ${arch.maxPositions} positions ${arch.id} was trained at: its relative (or ALiBi) positions run longer, untrained`,
    ];
  return [
    `--seq ${o.seq} is past the ${arch.maxPositions} positions ${arch.id} was trained for (max_position_embeddings): it runs through the RoPE scaling its config declares (up to ${limit})`,
  ];
}
