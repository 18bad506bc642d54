// A data-parallel degree that does not divide the global batch runs the smallest batch it can reach, not whatever a
// larger micro-batch rounds up to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario, resolveHardware } from '../../src/io/load-scenario.js';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
/** The smallest multiple of lcm(dp, group) at or above `batch`: what micro-batch 1 or 2 reaches. */
const least = (batch: number, dp: number, group: number): number => {
  const step = (dp * group) / gcd(dp, group);
  return Math.ceil(batch / step) * step;
};

function ranked(name: string, yaml: string, top = 30) {
  const s = parseScenario(name, yaml);
  const hw = resolveHardware(s);
  return plan({
    scenario: s,
    arch: resolveModel(s.model),
    hardware: hw.options,
    circuits: hw.circuits,
    top,
  }).plans;
}

describe('plan: the least global batch a layout reaches', () => {
  it('GRPO on 6 ranks, 64 completions in groups of 8: 72 (4 x 3 x 6 or 2 x 6 x 6), never 8 x 2 x 6 = 96', () => {
    const plans = ranked(
      'grpo-six.yaml',
      `name: grpo six
model: qwen2.5-7b
job:
  kind: fine-tune
  objective: grpo
  methods: [lora]
  globalBatch: 64
  datasetTokens: 1000000
  rl: { generations: 8, promptTokens: 256, completionTokens: 256 }
hardware: { owned: [{ gpu: h100-sxm, count: 6 }], counts: { min: 6, max: 6 } }
rank: time
`,
    );
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.some((p) => p.choices.dp === 6)).toBe(true);
    for (const p of plans) {
      const c = p.choices;
      expect(c.microBatch * c.gradAccum * c.dp).toBe(c.globalBatch);
      expect(c.globalBatch).toBe(least(64, c.dp, 8));
    }
  });

  it('SFT on 3 ranks, global batch 16: 18 (micro-batch 1 or 2), never 4 x 2 x 3 = 24', () => {
    const file = join(
      import.meta.dirname,
      '..',
      'fixtures',
      'scenarios',
      'three-gpus-batch-16.yaml',
    );
    // Every ranked plan: the micro-batch 4 rounding (24) ranked below the 18s.
    const plans = ranked('three-gpus-batch-16.yaml', readFileSync(file, 'utf8'), 1000);
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.choices.dp).toBe(3);
      expect(p.choices.globalBatch).toBe(least(16, 3, 1));
    }
  });
});
