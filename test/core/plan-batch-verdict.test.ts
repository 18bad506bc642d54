// Engine verdicts are cached per configuration group (configurations that differ only in micro-batch) and
// layout shape; a launch check that reads the micro-batch (TRL and Unsloth's KTOTrainer refuse a
// micro-batch of 1: kto_trainer.py "Actual (not effective) batch size must be > 1") must not carry its
// micro-batch-1 refusal over to the group's larger micro-batches.
import { describe, expect, it } from 'vitest';
import { planYaml } from '../helpers/plan.js';

const kto = (methods: string, gpu: string) => `name: kto-8b
model: llama-3.1-8b
job: { kind: fine-tune, objective: kto, methods: [${methods}], seq: 2048, globalBatch: 32, datasetTokens: 20000000 }
hardware: { owned: [{ gpu: ${gpu}, count: 1 }], counts: { min: 1, max: 1 } }
rank: time
`;

describe('micro-batch-dependent engine checks', () => {
  it('KTO plans at micro-batch 2 and more where micro-batch 1 is refused', () => {
    const r = planYaml('kto-8b.yaml', kto('lora', 'a100-80gb-sxm'), 20);
    expect(r.fits).toBe(true);
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.batch).toBeGreaterThanOrEqual(2);
  });
  it('a micro-batch-1 KTO configuration is still never planned', () => {
    const r = planYaml('kto-8b.yaml', kto('lora, qlora', 'rtx-4090'), 40);
    for (const p of r.plans) expect(p.options.batch).toBeGreaterThanOrEqual(2);
  });
});
