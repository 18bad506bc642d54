/**
 * A generate whose decoder layers ran partly through torch.compile'd functions (TimeOptions.generateLayer): the layer's
 * host work is its own eager ops plus each compiled call's wrapper and each CUDA-graph tree replay
 * (time/decode-host.ts compiledLayerHost). Where the eager step is bound by its dispatch, more eager ops or more compiled
 * calls never shorten it, and a CUDA-graph call costs more than a plain compiled one; where the GPU binds, the host's
 * count does not show. The attention masks generate builds before each step's layers add in series either way.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('gpt-oss-20b'));

function step(
  gpu: string,
  weights: string,
  layer?: TimeOptions['generateLayer'],
  masks?: number,
): number {
  const f: RawFlags = {
    model: 'gpt-oss-20b',
    gpu,
    method: 'inference',
    framework: 'hf',
    weights,
    seq: 600,
    batch: 2,
  };
  const o = optionsFromFlags(f);
  const t = {
    ...timeOptionsFromFlags(f, o),
    generateAllExperts: true,
    generateLayer: layer,
    generateMasks: masks,
  };
  return decodeStep(m, o, t, gpuRates(findGpu(gpu), t)).stepSeconds;
}

describe('decode layers run partly compiled', () => {
  const layer = { eagerOps: 62, compiledCalls: 2, cudagraphCalls: 1 };

  it('host-bound (bf16 on an A100): more eager ops or calls never shorten the step; a graph call costs more', () => {
    const base = step('a100-80gb-sxm', 'bf16', layer);
    expect(step('a100-80gb-sxm', 'bf16', { ...layer, eagerOps: 80 })).toBeGreaterThan(base);
    expect(step('a100-80gb-sxm', 'bf16', { ...layer, compiledCalls: 3 })).toBeGreaterThan(base);
    expect(step('a100-80gb-sxm', 'bf16', { ...layer, cudagraphCalls: 2 })).toBeGreaterThan(base);
    // The 62 eager ops and two compiled calls cost more host time than the default eager layer's 45 ops.
    expect(base).toBeGreaterThan(step('a100-80gb-sxm', 'bf16'));
  });

  it('GPU-bound (4-bit copies on a T4): the layer count does not move the step', () => {
    const f = (l?: TimeOptions['generateLayer']) => step('t4', 'nf4', l);
    expect(f(layer)).toBe(f({ ...layer, eagerOps: 80 }));
  });

  // generate's vmap'd masks (TimeOptions.generateMasks) run on the host before the step's first layer, the GPU idle.
  it('each mask adds the same host time in series, whether the host or the GPU binds the step', () => {
    for (const [gpu, weights] of [
      ['a100-80gb-sxm', 'bf16'],
      ['t4', 'nf4'],
    ] as const) {
      const none = step(gpu, weights, layer);
      const one = step(gpu, weights, layer, 1) - none;
      expect(one, gpu).toBeGreaterThan(0);
      expect(step(gpu, weights, layer, 2) - none, gpu).toBeCloseTo(2 * one, 9);
    }
    const host = step('a100-80gb-sxm', 'bf16', layer, 1) - step('a100-80gb-sxm', 'bf16', layer);
    const gpuBound = step('t4', 'nf4', layer, 1) - step('t4', 'nf4', layer);
    expect(host).toBeCloseTo(gpuBound, 9);
  });

  // A sliding layer's cache update blocks the host (generateLayer.sync): it waits for what is left of the previous
  // layer's MoE call on the GPU.
  it('a sync after the MoE call stalls the host by what the ops issued since do not cover', () => {
    const a100 = (sync?: { layers: number; eagerOps: number; compiledCalls: number }) =>
      step('a100-80gb-sxm', 'bf16', { ...layer, sync });
    const none = a100();
    const sync = { layers: 11, eagerOps: 29, compiledCalls: 1 };
    expect(a100(sync)).toBeGreaterThan(none);
    // Fewer ops before the sync leave more of the MoE call to wait for; enough of them cover it.
    expect(a100({ ...sync, eagerOps: 10 })).toBeGreaterThan(a100(sync));
    expect(a100({ ...sync, eagerOps: 1000 })).toBe(none);
    // Each syncing layer stalls alike.
    expect(a100({ ...sync, layers: 22 }) - none).toBeCloseTo(2 * (a100(sync) - none), 9);
  });
});
