/**
 * A generate whose decoder layers ran partly through torch.compile'd functions (TimeOptions.generateLayer): the layer's
 * host work is its own eager ops plus each compiled call's wrapper and each CUDA-graph tree replay
 * (time/decode-host.ts compiledLayerHost). Where the eager step is bound by its dispatch, more eager ops or more compiled
 * calls never shorten it, and a CUDA-graph call costs more than a plain compiled one; where the GPU binds, the host's
 * count does not show.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('gpt-oss-20b'));

function step(gpu: string, weights: string, layer?: TimeOptions['generateLayer']): number {
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
  const t = { ...timeOptionsFromFlags(f, o), generateAllExperts: true, generateLayer: layer };
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
});
