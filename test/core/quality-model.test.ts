/**
 * Quality by model: Unsloth's Qwen3.5 guide advises against 4-bit QLoRA on Qwen3.5 (dense or MoE: larger than
 * normal quantization differences), so an NF4 base trains at the lossy tier there and near elsewhere; the
 * default search (quality near) then plans Qwen3.5-27B without QLoRA.
 */
import { describe, expect, it } from 'vitest';
import { qualityOf } from '../../src/core/plan/quality.js';
import { plan } from '../../src/core/plan/index.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const SCENARIO = `
name: Qwen3.5-27B adapters on one RTX 5090
model: qwen3.5-27b
job:
  kind: fine-tune
  methods: [lora, qlora]
  seq: 2048
  globalBatch: 16
  datasetTokens: 5000000
hardware:
  owned: [{ gpu: rtx-5090, count: 1 }]
  counts: { min: 1, max: 1 }
rank: cost
`;

describe('quality by model', () => {
  it('an NF4 base trains lossy on Qwen3.5, near on other models; NF4 serving stays near', () => {
    const qlora = optionsFromFlags({ method: 'qlora' });
    expect(qualityOf(qlora, 'qwen3_5').tier).toBe('lossy');
    expect(qualityOf(qlora, 'qwen3_5_moe').tier).toBe('lossy');
    expect(qualityOf(qlora, 'llama').tier).toBe('near');
    expect(qualityOf(qlora).tier).toBe('near');
    const served = optionsFromFlags({ method: 'inference', weights: 'nf4' });
    expect(qualityOf(served, 'qwen3_5').tier).toBe('near');
  });

  it('the default search plans Qwen3.5-27B on one RTX 5090 without QLoRA, and says why', () => {
    const file = '/tmp/quality-model.yaml';
    const r = plan(planInputOf(file, parseScenario(file, SCENARIO)));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.method).not.toBe('qlora');
    const lossy = plan(
      planInputOf(file, parseScenario(file, `${SCENARIO}quality: lossy\n`)),
    ).plans.find((p) => p.options.method === 'qlora');
    expect(lossy?.quality.tier).toBe('lossy');
    expect(lossy?.quality.items[0]?.source).toBe(
      'https://unsloth.ai/docs/models/qwen3.5/fine-tune',
    );
  });
});
