/**
 * AITER's block-scaled FP8 fused MoE at decode on the engine's ROCm targets
 * (FrameworkProfile.blockFp8Linear.rocm.fusedMoePerKBlockSeconds): each routed expert's call walks w13's K (the hidden
 * size) and then w2's (the expert's width on this GPU) in 128-wide blocks, one after another, each block's scales
 * loaded before its MFMA, so at a few tokens the call takes that chain however few bytes it reads; it takes the longer
 * of the chain and its experts' bytes at the modelled bandwidth (AITER's tuned gfx942 fmoe tables: the engine's note).
 * In place of the Triton call's latency (moe-call.ts moeCallSeconds) where AITER's MoE runs the experts.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { isBlockScaledFp8, K_BLOCK, rocmAiterOn } from './block-fp8.js';
import { rocmGfx, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/**
 * Seconds a decode step's MoE layers add beyond their experts' bytes where AITER's block-FP8 fused MoE runs them
 * (the engine's `fusedMoePerKBlockSeconds` on this gfx target, AITER on, a block-scaled FP8 checkpoint run W8A8:
 * `w8a8`); undefined elsewhere. `layerBytes`: one MoE layer's routed-expert bytes on one GPU this step.
 */
export function aiterMoeSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  w: { w8a8: boolean; layerBytes: number },
): number | undefined {
  const fw = FRAMEWORKS[o.framework];
  const rocm = fw.blockFp8Linear?.rocm;
  const perK = rocm?.fusedMoePerKBlockSeconds;
  const gfx = rocmGfx(r);
  if (perK === undefined || gfx === undefined || !rocm?.targets.includes(gfx)) return undefined;
  if (!w.w8a8 || o.weights !== 'fp8' || !isBlockScaledFp8(m.arch)) return undefined;
  if (!rocmAiterOn(fw, t.rocmAiter) || m.moeLayers <= 0) return undefined;
  // An expert's width on this GPU: whole under expert parallelism, split over the TP ranks otherwise.
  const width = m.expertFfn / ((o.ep ?? 1) > 1 ? 1 : o.tp);
  const chain = perK * (Math.ceil(m.hidden / K_BLOCK) + Math.ceil(width / K_BLOCK));
  return m.moeLayers * Math.max(0, chain - w.layerBytes / r.mem);
}
