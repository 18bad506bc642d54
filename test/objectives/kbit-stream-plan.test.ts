/**
 * trl.experimental's ORPO and CPO (SimPO) trainers prepare a 4-bit model themselves (fp32 norms, so an fp32 residual
 * stream: engines/hf/memory.ts kbitPreparingObjectives). The planner's hours rest on the same step the plan shows:
 * tokens per step over the shown step time, for QLoRA as for LoRA.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';

const scenario = (objective: string) => `
name: ${objective} Mistral-7B on one A6000
model: mistral-7b-v0.3
job:
  kind: fine-tune
  objective: ${objective}
  methods: [lora, qlora]
  seq: 2048
  globalBatch: 32
  datasetTokens: 20000000
hardware:
  owned: [{ gpu: rtx-a6000, count: 1 }]
  counts: { min: 1, max: 1 }
search: { framework: hf-trainer }
rank: time
`;

describe('k-bit preparing objectives in the planner', () => {
  it.each(['simpo', 'orpo'])(
    "times a QLoRA %s plan's hours with the step it shows",
    (objective) => {
      const file = '/tmp/kbit-stream-plan.yaml';
      const r = plan({ ...planInputOf(file, parseScenario(file, scenario(objective))), top: 40 });
      const byMethod = (m: string) => r.plans.filter((p) => p.options.method === m);
      const q = byMethod('qlora');
      const l = byMethod('lora');
      expect(q.length).toBeGreaterThan(0);
      expect(l.length).toBeGreaterThan(0);
      // Both methods train the same pairs: tokens/s x the step time is the same tokens per step.
      const perStep = (p: (typeof r.plans)[number]) => p.time.tokensPerSecond * p.time.stepSeconds;
      const ref = perStep(l[0]!);
      for (const p of [...q, ...l]) expect(perStep(p) / ref).toBeCloseTo(1, 2);
    },
  );
});
