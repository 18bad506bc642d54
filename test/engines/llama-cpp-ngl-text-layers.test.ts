// llama.cpp's -ngl counts the text model's layers; a vision tower is a separate mmproj file. The layer split counts
// the tower's layers too, so a partial split of a model with a vision tower (Llama-4-Scout: 48 text layers, 34
// vision) would write an -ngl past the text layers and put everything on the GPU: it is not planned.
import { describe, expect, it } from 'vitest';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const rule = (model: string, gpuLayers?: number) => {
  const flags = { method: 'inference', framework: 'llama.cpp', weights: 'q4_k_m' };
  const o = { ...withEngineDefaults(optionsFromFlags(flags), flags), gpuLayers };
  return forbiddenBy(ENGINE_PROFILES['llama.cpp'].rules, {
    arch: resolveModel(model),
    options: o,
    dp: 1,
    accum: 1,
  })?.id;
};

const SCENARIO = `
name: Llama-4-Scout on one H100
model: llama-4-scout-17b-16e
job: { kind: inference, context: 8192, promptTokens: 4096, concurrency: 16, outputTokens: 100000000 }
hardware: { owned: [{ gpu: h100-sxm, count: 1 }], counts: { min: 1, max: 1 }, hostRamGiB: 256 }
search: { engines: [llama.cpp] }
`;

describe('llama.cpp -ngl counts text layers', () => {
  it('forbids a partial layer split of a model with a vision tower only', () => {
    expect(rule('llama-4-scout-17b-16e', 72)).toBe('llama-cpp-ngl-text-layers');
    expect(rule('llama-4-scout-17b-16e')).toBeUndefined();
    expect(rule('llama-4-scout-17b-16e', 83)).toBeUndefined();
    expect(rule('llama-3.1-70b', 60)).toBeUndefined();
  });
  it('plans Llama-4-Scout on llama.cpp with every layer on the GPU', () => {
    const file = '/tmp/llama-cpp-ngl-text-layers.yaml';
    const r = plan({ ...planInputOf(file, parseScenario(file, SCENARIO)), top: 20 });
    for (const p of r.plans) {
      const o = p.options;
      if (o.gpuLayers !== undefined) expect(o.gpuLayers).toBeGreaterThan(82);
    }
  });
});
