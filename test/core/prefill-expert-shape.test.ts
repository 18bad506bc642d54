// A prefill's routed experts run as grouped GEMMs whose narrow side is one expert's width on the GPU (its TP
// share), priced at that shape as a training step's experts are (time/decode.ts prefillTime).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { decodeTraffic, prefillTime } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const setup = (model: string, tp: number) => {
  const f = {
    method: 'inference',
    framework: 'vllm',
    gpus: tp,
    tp,
    batch: 4,
    seq: 9000,
    'prompt-tokens': 8192,
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = defaultTimeOptions(o.gpus);
  const r = gpuRates(findGpu('h100-sxm'), t);
  const m = modelFacts(resolveModel(model));
  const prefill = (facts = m) =>
    prefillTime(facts, o, r, decodeTraffic(facts, o, t, r, 1, 8192), 8192, 4);
  return { m, prefill };
};

describe("a prefill's routed experts at one expert's width", () => {
  it('an expert narrower than the model under TP prefills slower than one as wide as the model', () => {
    const { m, prefill } = setup('qwen3-235b-a22b', 4);
    expect(m.expertFfn / 4).toBeLessThan(m.hidden / 4);
    expect(prefill()).toBeGreaterThan(prefill({ ...m, expertFfn: m.hidden }));
  });

  it('a dense model keeps one shape for all its FLOPs (finite, unchanged by an expert width)', () => {
    const { m, prefill } = setup('llama-3.1-8b', 1);
    expect(m.experts).toBeLessThanOrEqual(1);
    expect(Number.isFinite(prefill())).toBe(true);
    expect(prefill({ ...m, expertFfn: 64 })).toBe(prefill());
  });
});
