/**
 * The ops one decode step of transformers' generate dispatches, counted by transformers version
 * (scripts/measure/generate_layer_host.py; docs/time-model.md "generate's ops counted by transformers version"):
 * the eager layer count the model prices sits between the source of its per-op price (4.28.1's Llama layer, eager
 * attention) and the layers TRL's rollouts run (4.48.3 and 5.13.0, SDPA).
 */
import { describe, expect, it } from 'vitest';
import { OPS_PER_LAYER_EAGER } from '../../src/core/time/train-work.js';
import { eagerLayerOps } from '../../src/core/time/decode-host.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { readMeasured } from '../helpers/measured.js';

interface Run {
  arm: 'src' | 'rows';
  transformers: string;
  batch: number;
  layer_ops: number;
  outside_layers_ops: number;
}
const fixture = readMeasured('generate-layer-ops-cpu.json') as { runs: Run[] };
const run = (arm: Run['arm'], v: string): Run =>
  fixture.runs.find((r) => r.arm === arm && r.transformers === v)!;

describe("generate's decode ops by transformers version", () => {
  it("the per-op price's source (4.28.1, eager attention) issued more kernels a layer than the model counts", () => {
    expect(run('src', '4.28.1').layer_ops).toBe(55);
    expect(run('src', '4.28.1').layer_ops).toBeGreaterThan(OPS_PER_LAYER_EAGER);
  });

  it("the rollouts' SDPA layers (padded, sampled Qwen2) issue no more than the model counts for qwen2", () => {
    const m = modelFacts(resolveModel('qwen2.5-7b'));
    const layers = m.layers;
    const qwen2 = eagerLayerOps(m, FRAMEWORKS.hf, OPS_PER_LAYER_EAGER, 64);
    for (const v of ['4.48.3', '5.13.0']) {
      expect(run('rows', v).layer_ops).toBeLessThanOrEqual(qwen2 / layers);
      expect(run('src', v).layer_ops).toBe(43);
    }
  });
});
