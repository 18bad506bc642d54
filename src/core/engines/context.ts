/**
 * The context an estimate runs at: the model's config bounds it (max_position_embeddings, or the rope-scaled
 * length it declares: model/structure.ts), unless the engine scales RoPE itself (runs.ts extendsContext). Past
 * the positions the model was trained for, the estimate runs with a warning.
 */
import type { Engine } from '../../schema/engine.js';
import { isGguf, type EstimateOptions } from '../../schema/estimate.js';
import type { Arch } from '../model/arch.js';
import { assertStructure, maxContext } from '../model/structure.js';
import { FlagError } from '../../schema/flags.js';
import { ENGINE_RUNS } from './engines-runs.js';

/**
 * assertStructure on `engine` (flag errors as it throws them, citing where the engine itself raises on the
 * limit: runs.ts `limits`); returns the warnings for the context. `estimate`: the estimate's own check, which
 * also runs past the config's positions where the engine computes them for any index (runs.ts positionsPastConfig);
 * plan and explain keep the config's bound there.
 */
export function assertEngineStructure(
  arch: Arch,
  o: EstimateOptions,
  engine: Engine,
  estimate = false,
): string[] {
  const limit = maxContext(arch);
  const runs = ENGINE_RUNS[engine];
  const extends_ =
    runs.extendsContext ?? (estimate ? runs.positionsPastConfig?.(arch.modelType) : null);
  if (extends_ && o.seq > limit) {
    citedStructure(arch, { ...o, seq: limit }, engine);
    return [
      `--seq ${o.seq} is past the ${limit} positions ${arch.id}'s config declares: ${extends_}; the model was not trained at this length`,
    ];
  }
  citedStructure(arch, o, engine);
  if (o.seq <= arch.maxPositions) return [];
  if (arch.unboundedPositions)
    return [
      `--seq ${o.seq} is past the ${arch.maxPositions} positions ${arch.id} was trained at: its relative (or ALiBi) positions run longer, untrained`,
    ];
  return [
    `--seq ${o.seq} is past the ${arch.maxPositions} positions ${arch.id} was trained for (max_position_embeddings): it runs through the RoPE scaling its config declares (up to ${limit})`,
  ];
}

/** assertStructure, its flag error naming the engine's source for the limit where runs.ts records one. */
function citedStructure(arch: Arch, o: EstimateOptions, engine: Engine): void {
  try {
    assertStructure(arch, ENGINE_RUNS[engine].tpAnyDegree ? { ...o, tp: 1 } : o);
  } catch (e) {
    const limits = ENGINE_RUNS[engine].limits;
    const cited =
      e instanceof FlagError && (e.flag === 'tp' || e.flag === 'seq')
        ? limits?.[e.flag]
        : undefined;
    if (!cited || !(e instanceof FlagError)) throw e;
    throw new FlagError(e.flag, e.value, `${e.allowed}; ${engine}: ${cited}`);
  }
}

/**
 * The layout `engine` places `o` as on this model (EngineRuns.estimatedAs), or the float model it dequantizes a
 * GGUF file into (EngineRuns.ggufDequantized): rewrites `o`, returns the note.
 */
export function estimatedAs(arch: Arch, o: EstimateOptions, engine: Engine): string | null {
  const runs = ENGINE_RUNS[engine];
  const gguf = runs.ggufDequantized;
  if (gguf && isGguf(o.weights)) {
    const file = o.weights;
    if (!gguf.modelTypes.includes(arch.modelType))
      throw new FlagError(
        'weights',
        file,
        `a format ${engine} loads for model_type '${arch.modelType}': ${gguf.refuses}`,
      );
    o.weights = gguf.dtype;
    o.compute = gguf.dtype;
    return `--weights ${file}: ${gguf.why}; estimated as --weights ${gguf.dtype} --compute ${gguf.dtype} (vramplan writes no launch files for it)`;
  }
  return runs.estimatedAs?.(arch, o) ?? null;
}
