// A plan whose time rests on parameter or checkpoint offload's host copies hidden behind compute says so.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { HIDDEN_COPIES_NOTE } from '../../src/core/plan/overlap.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario, resolveHardware } from '../../src/io/load-scenario.js';

const s = parseScenario(
  'overlap.yaml',
  `name: overlap
model: llama-3.1-8b
job: { kind: fine-tune, methods: [lora], seq: 8192, globalBatch: 8, datasetTokens: 1000000, epochs: 1 }
hardware: { owned: [{ gpu: rtx-4090, count: 1 }], counts: { min: 1, max: 1 } }
search: { framework: hf }
rank: cost
`,
);

describe('plan notes: host copies assumed hidden', () => {
  it('notes exactly the plans with parameter or checkpoint offload', () => {
    const hw = resolveHardware(s);
    const r = plan({
      scenario: s,
      arch: resolveModel(s.model),
      hardware: hw.options,
      circuits: hw.circuits,
      top: 40,
    });
    const hidden = (p: (typeof r.plans)[number]) =>
      p.options.offload === 'optimizer+params' || p.options.checkpointing === 'offload';
    // The search ranks both kinds here: one-GPU ZeRO-3 with parameter offload, and plans without it.
    expect(r.plans.some(hidden)).toBe(true);
    expect(r.plans.some((p) => !hidden(p))).toBe(true);
    for (const p of r.plans) expect((p.notes ?? []).includes(HIDDEN_COPIES_NOTE)).toBe(hidden(p));
  });
});
