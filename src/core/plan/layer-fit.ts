/**
 * llama.cpp's `-ngl` and `--n-cpu-moe` searched exactly: per configuration, the most layers on the GPU (and the
 * fewest layers' experts in host RAM) that fit each GPU memory the hardware offers, found by searching the
 * memory model. llama.cpp takes any layer count (common/arg.cpp `--gpu-layers N`, `--n-cpu-moe N` at 25d5b0c5), and
 * its own fitting (common_params_fit_impl, common/fit.cpp at 6d0892ba, https://github.com/ggml-org/llama.cpp/blob/
 * 6d0892ba065b38ee790b825fdc8fb8e2c453e6dd/common/fit.cpp) narrows n_gpu_layers (output layer counted) by false
 * position, and "once we only have a difference of a single layer, stop and return the lower bound that just barely
 * still fits" each device's free memory less a margin; for an MoE model it first fits the layers with their experts
 * on the host, then turns those back into full layers while they fit. The planner asks the same of its memory model
 * against the scenario's memoryMargin. Fewer layers on the same GPU are never faster (more run from host RAM) and hold
 * more host RAM, so only the largest fitting count is a candidate for that GPU memory.
 */
import type { Arch } from '../model/arch.js';
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { engineFieldsInto } from '../engines/engines.js';
import { memorySurface, type AlikeEstimates } from '../memory/surface.js';
import { attentionAlike } from '../memory/inference.js';
import { keptEstimates } from './memory-twins.js';

/** What the exact layer search reads besides a configuration: the engine, its layer count, layouts and memories. */
export interface LayerFitSpace {
  /** The layer-offload engine (the framework with layerOffload). */
  engine: Engine;
  /** Layers of the model as the engine loads it (memory/setup.ts loadedLayers). */
  layers: number;
  /** Pipeline degrees the search gives the engine (its layer split over one server's GPUs; 1: one GPU). */
  pipelines: readonly number[];
  /** Bytes per GPU each GPU option offers to the plan (its memory less the scenario's memoryMargin), distinct. */
  capacities: readonly number[];
  /** Memory estimates the search has made (counted into the plan's `searched.memoryEvaluations`). */
  evaluations: number;
  /**
   * Memory surfaces' estimates kept by options for the searches of one model sides (model-side.ts
   * ModelSides.surfaces), which the rows' surfaces read too (rows.ts surfaceOf): a serving fleet's per-source
   * searches ask the counts the search over every GPU memory asked, and a layer count's row asks what its fit did.
   */
  kept?: Map<string, AlikeEstimates>;
}

/**
 * The largest n in [lo, hi] with `value(n) <= cap`, where `value` grows with n; lo - 1 when none is. The ends first
 * (callers share them between capacities), then the method of false position, as llama.cpp's fitting narrows
 * n_gpu_layers (common/fit.cpp at 6d0892ba: "interpolate the memory use / layer between low and high linearly to
 * get a guess where it meets our target"), until the fitting and the failing bound are one apart. A guess that does
 * not halve the bracket is followed by a bisection step, so a value far from linear costs at most about twice the
 * calls of bisection; a near-linear one (memory against layers) costs two or three besides the ends.
 */
export function largestUnder(
  lo: number,
  hi: number,
  value: (n: number) => number,
  cap: number,
): number {
  let okV = value(lo);
  if (okV > cap) return lo - 1;
  let badV = value(hi);
  if (badV <= cap) return hi;
  let ok = lo;
  let bad = hi;
  let bisect = false;
  while (bad - ok > 1) {
    const width = bad - ok;
    const guess = bisect
      ? ok + Math.floor(width / 2)
      : ok + Math.floor(((cap - okV) * width) / (badV - okV));
    const n = Math.min(bad - 1, Math.max(ok + 1, guess));
    const v = value(n);
    if (v <= cap) {
      ok = n;
      okV = v;
    } else {
      bad = n;
      badV = v;
    }
    bisect = !bisect && bad - ok > width / 2;
  }
  return ok;
}

/**
 * Device bytes per GPU of configuration `o` on the layer-offload engine at pipeline degree `pp`, with `set` applied
 * (a -ngl or --n-cpu-moe value), as the planner's rows read them: the same options (rows.ts variantOptions on one
 * GPU per stage, no sharding) and the same memory surface at the configuration's batch on one replica.
 */
function deviceBytesAt(
  arch: Arch,
  o: EstimateOptions,
  space: LayerFitSpace,
  pp: number,
  set: Partial<EstimateOptions>,
): number {
  const opts = engineFieldsInto(
    {
      ...o,
      ...set,
      tp: 1,
      pp,
      zero: 0,
      offload: 'none',
      optimizerInBackward: false,
      liger: false,
    },
    space.engine,
  );
  // Each surface counts the estimates it asks for, read from `kept` or made (memory/surface.ts AlikeEstimates).
  const alike = space.kept && keptEstimates(space.kept, opts, attentionAlike(opts));
  const surface = memorySurface(arch, opts, {}, undefined, undefined, undefined, undefined, alike);
  const device = surface.at(o.batch, 1).deviceBytes;
  space.evaluations += surface.evaluations;
  return device;
}

/** deviceBytesAt with `field` at each count asked, each count estimated once. */
function devicePerCount(
  arch: Arch,
  o: EstimateOptions,
  space: LayerFitSpace,
  pp: number,
  field: 'gpuLayers' | 'cpuMoeLayers',
): (n: number) => number {
  const device = new Map<number, number>();
  return (n) => {
    let d = device.get(n);
    if (d === undefined) device.set(n, (d = deviceBytesAt(arch, o, space, pp, { [field]: n })));
    return d;
  };
}

/**
 * The `-ngl` counts searched for configuration `o`, most first: for each pipeline degree and GPU memory of `space`,
 * the most layers that fit, where fewer than all do (all layers, output layer included, is the plan without
 * `gpuLayers`) and at least one does.
 */
export function gpuLayerCounts(arch: Arch, o: EstimateOptions, space: LayerFitSpace): number[] {
  const L = space.layers;
  const out = new Set<number>();
  for (const pp of space.pipelines) {
    // n = L + 1 is every layer and the output layer (llama-model.cpp: n_gpu_layers > n_layer).
    const at = devicePerCount(arch, o, space, pp, 'gpuLayers');
    for (const cap of space.capacities) {
      const n = largestUnder(1, L + 1, at, cap);
      if (n >= 1 && n <= L) out.add(n);
    }
  }
  return [...out].sort((a, b) => b - a);
}

/**
 * The `--n-cpu-moe` counts searched for MoE configuration `o` (every layer on the GPU), fewest first: for each
 * pipeline degree and GPU memory of `space`, the fewest layers whose routed experts stay in host RAM that fit, where
 * the model does not fit with none there and does with all there (`--cpu-moe`).
 */
export function cpuMoeCounts(arch: Arch, o: EstimateOptions, space: LayerFitSpace): number[] {
  const L = space.layers;
  const out = new Set<number>();
  for (const pp of space.pipelines) {
    const at = devicePerCount(arch, o, space, pp, 'cpuMoeLayers');
    for (const cap of space.capacities) {
      // Fits from some count of host-held layers up: the largest k = L - n that fits, n from 0 to L.
      const k = largestUnder(0, L, (j) => at(L - j), cap);
      const n = L - k;
      if (k >= 0 && n >= 1) out.add(n);
    }
  }
  return [...out].sort((a, b) => a - b);
}
