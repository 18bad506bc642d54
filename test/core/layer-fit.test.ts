// llama.cpp's -ngl and --n-cpu-moe searched exactly (plan/layer-fit.ts): the plan puts on the GPU the most layers
// (the fewest layers' experts in host RAM) that fit, by the memory model `estimate` reports.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { loadedLayers } from '../../src/core/memory/setup.js';
import {
  cpuMoeCounts,
  gpuLayerCounts,
  largestUnder,
  type LayerFitSpace,
} from '../../src/core/plan/layer-fit.js';
import type { AlikeEstimates } from '../../src/core/memory/surface.js';
import { MiB } from '../../src/core/units.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { Arch } from '../../src/core/model/index.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import type { Gpu } from '../../src/schema/gpu.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

/** What the plan offers a GPU: its memory less the scenario's margin (context.ts hwTableOf capBytes). */
const capOf = (gpu: Gpu, margin: number) => gpu.memoryMiB * MiB * (1 - margin);

/** `estimate`'s per-GPU device bytes for the options with `set` applied, on `gpu`. */
const deviceAt = (arch: Arch, o: EstimateOptions, gpu: Gpu, set: Partial<EstimateOptions>) =>
  buildEstimate(arch, { ...o, ...set }, gpu).perGpu.deviceBytes;

const layersOf = (arch: Arch) => loadedLayers(arch, FRAMEWORKS['llama.cpp']);

describe('largestUnder', () => {
  it('is the largest n in [lo, hi] whose growing value is at most the cap, lo - 1 when none is', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: -10, max: 100_000 }),
        (lo, steps, cap) => {
          // value(lo + i): a running sum of non-negative steps (any growing shape, flat runs included).
          const values: number[] = [];
          for (const x of steps) values.push((values.at(-1) ?? 0) + x);
          const hi = lo + values.length - 1;
          let calls = 0;
          const value = (n: number) => (calls++, values[n - lo]!);
          const n = largestUnder(lo, hi, value, cap);
          let want = lo - 1;
          for (let k = lo; k <= hi; k++) if (values[k - lo]! <= cap) want = k;
          expect(n).toBe(want);
          // Two ends, then at most two calls per halving of the bracket.
          expect(calls).toBeLessThanOrEqual(2 + 2 * Math.ceil(Math.log2(values.length + 1)));
        },
      ),
    );
  });
  it('finds the count of a linear value in two calls besides the ends', () => {
    let calls = 0;
    const n = largestUnder(1, 81, (k) => (calls++, 1e9 + k * 5.4e8), 24.4e9);
    expect(n).toBe(43);
    expect(calls).toBeLessThanOrEqual(4);
  });
});

// Models llama.cpp runs, dense and MoE; GPUs from 12 to 80 GB.
const MODELS = [
  'llama-3.1-8b',
  'llama-3.1-70b',
  'qwen2.5-7b',
  'gemma-2-27b',
  'gpt-oss-120b',
  'mixtral-8x7b-v0.1',
];
const GPUS = ['rtx-3060-12gb', 'rtx-4090', 'l4', 'rtx-a6000', 'a100-80gb-sxm'];

describe('the chosen counts are maximal by estimate (property)', () => {
  it('for random models, GPUs, contexts, batches, weights and margins', () => {
    const archs = new Map(MODELS.map((m) => [m, resolveModel(m)]));
    fc.assert(
      fc.property(
        fc.constantFrom(...MODELS),
        fc.constantFrom(...GPUS),
        fc.constantFrom(2048, 8192, 32768),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('q4_k_m', 'q8_0', 'fp16'),
        fc.constantFrom('auto', 'fp8'),
        fc.constantFrom(0, 0.05, 0.1),
        (model, gpuId, seq, batch, weights, kv, margin) => {
          const arch = archs.get(model)!;
          const gpu = findGpu(gpuId);
          const flags = {
            method: 'inference',
            framework: 'llama.cpp',
            weights,
            seq,
            batch,
            'kv-cache-dtype': kv,
          };
          const o = withEngineDefaults(optionsFromFlags(flags), flags);
          const cap = capOf(gpu, margin);
          const L = layersOf(arch);
          const space: LayerFitSpace = {
            engine: 'llama.cpp',
            layers: L,
            pipelines: [1],
            capacities: [cap],
            evaluations: 0,
          };
          const fits = (set: Partial<EstimateOptions>) => deviceAt(arch, o, gpu, set) <= cap;
          // The prefill (time to first token) and the decode step, each never shorter with fewer layers on the GPU.
          const timesOf = (set: Partial<EstimateOptions>) => {
            const t = buildEstimate(arch, { ...o, ...set }, gpu).time!;
            return [t.ttftSeconds!, t.stepSeconds];
          };
          const noSlower = (a: Partial<EstimateOptions>, b: Partial<EstimateOptions>) => {
            const [x, y] = [timesOf(a), timesOf(b)];
            expect(x[0]).toBeLessThanOrEqual(y[0]!);
            expect(x[1]).toBeLessThanOrEqual(y[1]!);
          };
          const ngl = gpuLayerCounts(arch, o, space);
          expect(ngl.length).toBeLessThanOrEqual(1);
          if (ngl.length === 1) {
            const n = ngl[0]!;
            expect(fits({ gpuLayers: n })).toBe(true);
            // Only the largest count is searched: one layer fewer on the same GPU is never faster.
            if (n > 1) noSlower({ gpuLayers: n }, { gpuLayers: n - 1 });
            // n + 1 = L + 1 is every layer and the output layer: the plain plan, which does not fit.
            expect(fits({ gpuLayers: n + 1 })).toBe(false);
          } else expect(fits({}) || !fits({ gpuLayers: 1 })).toBe(true);
          const moe = cpuMoeCounts(arch, o, space);
          if (moe.length === 1) {
            const n = moe[0]!;
            expect(fits({ cpuMoeLayers: n })).toBe(true);
            expect(fits({ cpuMoeLayers: n - 1 })).toBe(false);
            noSlower({ cpuMoeLayers: n }, { cpuMoeLayers: n + 1 });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('estimates kept by an earlier search (ModelSides.surfaces)', () => {
  it('give each later search the counts and estimate count it finds alone (property)', () => {
    const archs = new Map(MODELS.map((m) => [m, resolveModel(m)]));
    const spaceOf = (
      arch: Arch,
      caps: number[],
      kept?: Map<string, AlikeEstimates>,
    ): LayerFitSpace => ({
      engine: 'llama.cpp',
      layers: layersOf(arch),
      pipelines: [1, 2],
      capacities: caps,
      evaluations: 0,
      kept,
    });
    const search = (arch: Arch, o: EstimateOptions, space: LayerFitSpace) => ({
      ngl: gpuLayerCounts(arch, o, space),
      moe: cpuMoeCounts(arch, o, space),
      evaluations: space.evaluations,
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...MODELS),
        fc.uniqueArray(fc.constantFrom(...GPUS), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(4096, 32768),
        fc.constantFrom('q4_k_m', 'fp16'),
        (model, gpuIds, seq, weights) => {
          const arch = archs.get(model)!;
          const flags = { method: 'inference', framework: 'llama.cpp', weights, seq, batch: 1 };
          const o = withEngineDefaults(optionsFromFlags(flags), flags);
          const caps = gpuIds.map((g) => capOf(findGpu(g), 0.05)).sort((a, b) => a - b);
          const kept = new Map<string, AlikeEstimates>();
          // The search of every memory first (as plan() before the fleet's per-source searches), then each alone.
          expect(search(arch, o, spaceOf(arch, caps, kept))).toEqual(
            search(arch, o, spaceOf(arch, caps)),
          );
          for (const cap of [...caps].reverse())
            expect(search(arch, o, spaceOf(arch, [cap], kept))).toEqual(
              search(arch, o, spaceOf(arch, [cap])),
            );
          expect(kept.size).toBeGreaterThan(0);
        },
      ),
      { numRuns: 12 },
    );
  });
});
