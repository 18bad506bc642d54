// A plan's id names the dtype it runs: without bf16 (T4) a bf16 configuration runs fp16 (plan/configs.ts idPartOn).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planScenarioObject } from '../../src/io/plan-scenario.js';

const scenario = (gpu: string) => `
name: LoRA on ${gpu}
model: qwen3-0.6b
job: { kind: fine-tune, methods: [lora], seq: 512, globalBatch: 8, datasetTokens: 100000 }
search: { engines: [hf-trainer], weights: [bf16], optimizers: [adamw], checkpointing: [full], microBatches: [1, 8] }
hardware:
  owned:
    - { gpu: ${gpu}, count: 1 }
  counts: { min: 1, max: 1 }
`;
const plansOn = async (gpu: string) =>
  (await planScenarioObject('x.yaml', parseScenario('x.yaml', scenario(gpu)))).plans;

describe('plan ids name the compute the plan runs', () => {
  it('LoRA on a T4 (no bf16): fp16 in the id, the choices and the weights', async () => {
    const plans = await plansOn('t4');
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.choices.compute).toBe('fp16');
      expect(p.choices.weights).toBe('fp16');
      expect(p.id.startsWith('lora/fp16/')).toBe(true);
      expect(p.id).not.toContain('bf16');
    }
  });
  it('on a GPU with bf16 the id keeps bf16', async () => {
    const plans = await plansOn('l4');
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) expect(p.id.startsWith('lora/bf16/')).toBe(true);
  });
});
