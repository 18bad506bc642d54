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
import { memorySurface } from '../memory/surface.js';

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
   * Device bytes already found by other searches of the same model sides (model-side.ts ModelSides.layerFits):
   * a serving fleet's per-source searches ask the counts the search of every source asked before them.
   */
  kept?: LayerFits;
}

/** A count's device bytes and the memory estimates that found them (counted again where reused). */
interface DeviceAt {
  device: number;
  evaluations: number;
}

/**
 * Device bytes per layer count, by the configuration's options, engine, pipeline degree and searched field (JSON
 * of the options: what deviceBytesAt reads besides the model).
 */
export type LayerFits = Map<string, Map<number, DeviceAt>>;

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
  const surface = memorySurface(arch, opts);
  const device = surface.at(o.batch, 1).deviceBytes;
  space.evaluations += surface.evaluations;
  return device;
}

/**
 * deviceBytesAt with `field` at each count asked, each count estimated once per model sides (a count another
 * search found is read back, its estimates counted as the search's own, so `searched.memoryEvaluations` is what
 * the search alone would make).
 */
function devicePerCount(
  arch: Arch,
  o: EstimateOptions,
  space: LayerFitSpace,
  pp: number,
  field: 'gpuLayers' | 'cpuMoeLayers',
): (n: number) => number {
  const key = `${space.engine}|${pp}|${field}|${JSON.stringify(o)}`;
  let found = space.kept?.get(key);
  if (found === undefined) {
    found = new Map<number, DeviceAt>();
    space.kept?.set(key, found);
  }
  const device = found;
  // Counted once per search: a count this search asked before is not estimated again.
  const asked = new Set<number>();
  return (n) => {
    let d = device.get(n);
    if (d === undefined) {
      const before = space.evaluations;
      const bytes = deviceBytesAt(arch, o, space, pp, { [field]: n });
      device.set(n, (d = { device: bytes, evaluations: space.evaluations - before }));
    } else if (!asked.has(n)) space.evaluations += d.evaluations;
    asked.add(n);
    return d.device;
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
