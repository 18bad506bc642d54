/**
 * A decode step's routed experts under the engine's default 16-bit fused_moe tiles. The Triton fused_moe picks its
 * tiles from a tuned config file named for the step's experts, their width on the GPU and the card, else from
 * `get_default_config`, whose 16-bit tiles change at E tokens (engines/sglang/fused-moe-configs.ts reads which files
 * each release ships). Above E tokens the default tiles keep a share of a tuned file's rate where the step reads every
 * expert (the profile's `fusedMoeTile16.defaults`); at or below, the small tiles run as a tuned file does (the same
 * source), so nothing is added there.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { routedBatch } from './graph-step.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/**
 * Seconds a decode step's 16-bit Triton experts (`triton16`, decode.ts moeLayersSeconds) take beyond their bytes at
 * the memory rate where the engine's default tiles run them: more routed tokens than experts and no tuned file for the
 * shape on the card in the run's release. 0 without the profile's `defaults`, off NVIDIA, under expert parallelism
 * or DP attention (their per-rank shapes are not read), where the card or release is not known to the table, or at
 * or below E tokens. `expertBytes`: the step's routed-expert bytes on one GPU.
 */
export function defaultTileSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  expertBytes: number,
  triton16: boolean,
): number {
  const d = FRAMEWORKS[o.framework].fusedMoeTile16?.defaults;
  if (d === undefined || !triton16 || r.rocm || r.gpuId === undefined || m.experts <= 1) return 0;
  if ((o.ep ?? 1) > 1 || o.dpAttention === true || expertBytes <= 0) return 0;
  if (routedBatch(o, t, r, o.batch) <= m.experts) return 0;
  const width = m.expertFfn / o.tp;
  if (!Number.isInteger(width) || d.tuned(m.experts, width, r.gpuId, t.engineVersion) !== false)
    return 0;
  return (expertBytes / r.mem) * (1 / d.largeReadShare - 1);
}
