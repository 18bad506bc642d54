/**
 * A decode step's block-FP8 routed experts on the Triton fused_moe's default tiles. Without a tuned
 * `E=..,N=..,device_name=..,dtype=fp8_w8a8,block_shape=[128,128].json` in the release, `try_get_optimal_moe_config`
 * runs `get_default_config` (vllm/model_executor/layers/fused_moe/fused_moe.py), whose kernel runs longer than a tuned
 * file's at some batch sizes (the engine's `FusedMoeGrid.blockFp8Tiles.slowdown`, from kernel benchmarks). Priced only
 * where the engine's listing says so for the run's release and card: the Triton fused_moe runs the block-FP8 experts
 * (`triton`), and no tuned file matches the layer's local experts and per-rank width (`tuned`); a run that added a
 * tuned file (TimeOptions.moeTunedConfig) is not. The experts' GEMMs at decode are the step's routed-expert bytes at
 * the card's read rate (the model's expert time), so the default tiles add (slowdown - 1) of it.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { runsBlockFp8Path } from './block-fp8.js';
import { routedBatch } from './graph-step.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/** The layer's local experts and the down projection's input width on one rank (vLLM's `E, _, N = w2_shape`). */
function localShape(m: ModelFacts, o: EstimateOptions): { e: number; n: number } {
  const ep = o.ep ?? 1;
  return { e: m.experts / ep, n: m.expertFfn / (ep > 1 ? 1 : o.tp) };
}

/**
 * Seconds a decode step's MoE layers spend beyond a tuned file's kernels on the default tiles; 0 where the engine gives
 * no listing, the release or card is not listed, another kernel runs the experts, or a tuned file matched.
 * `layerBytes`: one MoE layer's routed-expert bytes on one GPU this step.
 */
export function defaultTileSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  layerBytes: number,
): number {
  const tiles = FRAMEWORKS[o.framework].fusedMoeTile16?.grid?.blockFp8Tiles;
  const v = t.engineVersion;
  if (tiles === undefined || v === undefined || r.gpuId === undefined || r.rocm) return 0;
  if (t.moeTunedConfig === true || o.dpAttention === true || !runsBlockFp8Path(m.arch, o, r.cc))
    return 0;
  if (tiles.triton(v, r.cc) !== true) return 0;
  const { e, n } = localShape(m, o);
  if (tiles.tuned(v, e, n, r.gpuId) !== false) return 0;
  const factor = tiles.slowdown(routedBatch(o, t, r, o.batch));
  return m.moeLayers * (layerBytes / r.mem) * (factor - 1);
}
