/**
 * The planner's memory surfaces are made once per configuration and layout, whatever the GPU (memory/surface.ts); an
 * engine that upcasts MXFP4 experts to BF16 at load on some cards (time/mxfp4-upcast.ts) holds more there. This is
 * what a row adds on such a card: the BF16 model's weight bytes less the MXFP4 model's, per GPU (the rest of the
 * estimate does not read the weight dtype's bytes), remembered per model and options less the micro-batch.
 */
import type { Arch } from '../model/arch.js';
import { estimateMemory } from '../memory/memory.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { upcastsMxfp4Experts } from '../time/mxfp4-upcast.js';
import { withExpertGroup } from './expert-parallel.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';

const EXTRA = new WeakMap<Arch, Map<string, number>>();

const weightBytes = (arch: Arch, o: EstimateOptions, upcast: boolean): number => {
  const b = estimateMemory(arch, o, { mxfp4Upcast: upcast, lean: true }).perGpu.breakdown;
  return b.weights + b.quantConstants;
};

/**
 * Device bytes a row of options `row` over `dp` data-parallel ranks holds on `gpu` beyond its GPU-independent surface
 * under its engine's `framework`: the upcast experts' (0: none).
 */
export function mxfp4UpcastBytes(
  arch: Arch,
  row: EstimateOptions,
  dp: number,
  framework: EstimateOptions['framework'],
  gpu: Gpu,
): number {
  // Rows of engines with no upcast rule (the most) leave before the options are copied: this runs per row and GPU.
  if (row.weights !== 'mxfp4' || FRAMEWORKS[framework].mxfp4UpcastExperts === undefined) return 0;
  // A DP-attention row's plan runs expert parallelism over its MoE GPUs (plan/expert-parallel.ts withExpertGroup).
  const o = withExpertGroup({ ...row, gpus: row.tp * row.pp * dp, framework });
  if (!upcastsMxfp4Experts(o, gpu)) return 0;
  let byArch = EXTRA.get(arch);
  if (!byArch) EXTRA.set(arch, (byArch = new Map()));
  const key = JSON.stringify({ ...o, batch: 0 });
  let extra = byArch.get(key);
  if (extra === undefined) {
    extra = Math.max(0, weightBytes(arch, o, true) - weightBytes(arch, o, false));
    byArch.set(key, extra);
  }
  return extra;
}
