// A served Llama 3.2 Vision scenario carries no images: the planner times the layers a text-only request runs, as
// `estimate` does (time/model-facts.ts servedArch: the image cross-attention layers skipped), so it ranks by the
// tokens/s estimate gives its plans.
import { afterAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { estimatedRate, inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

const input = inputOf('serve-8b-64-users-24gb.yaml', (s) => {
  s.model = 'llama-3.2-11b-vision';
  s.job = {
    kind: 'inference',
    context: 2048,
    promptTokens: 1024,
    concurrency: 16,
    outputTokens: 10_000_000,
  };
  // Rented: at the board's power (an owned GPU's searched power limits time it slower than `estimate`'s default).
  s.hardware = {
    ...s.hardware,
    owned: [],
    rent: { gpus: ['l4'], kinds: ['on-demand'] },
    counts: { min: 1, max: 1 },
  };
  s.rank = 'cost';
  s.power = { ...s.power, circuits: [] };
  s.expect = undefined;
});

describe('a text-only serving plan of a vision model with cross-attention layers', () => {
  it("ranks by the text-only tokens/s that estimate gives the plan's options", () => {
    const r = plan({ ...input, top: 10 });
    expect(r.plans.length).toBeGreaterThan(0);
    const gpu = findGpu('l4');
    for (const p of r.plans)
      expect(Math.abs(p.time.tokensPerSecond / estimatedRate(input.arch, p, gpu) - 1)).toBeLessThan(
        2e-3,
      );
  });
});
