/**
 * The plan note for a sequence past the positions the model's config declares: only the engines that scale RoPE
 * themselves run there (plan/configs.ts variantsOf; engines' runs.ts extendsContext), each in its own way (Unsloth's
 * FastLlamaModel.from_pretrained sets a linear rope_scaling of max_seq_length over the config's positions), and
 * the others are left out of the search. The plan says so, as `estimate` warns (engines/context.ts).
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { maxContext } from '../model/structure.js';
import { ENGINE_RUNS } from '../engines/engines-runs.js';
import { engineOf } from '../engines/engine.js';

export function pastPositionsNote(arch: Arch, o: EstimateOptions): string | null {
  const limit = maxContext(arch);
  const how = ENGINE_RUNS[engineOf(o)].extendsContext;
  if (o.seq <= limit || !how) return null;
  const n = (x: number): string => x.toLocaleString('en-US');
  return `sequence ${n(o.seq)} is past the ${n(limit)} positions ${arch.id}'s config declares: ${how}, untrained at this length; the engines that do not are left out (a rope_scaling the model's card gives, set in its config, lets them run it)`;
}
