// When nothing fits and the scenario's quality pruned configurations, the nearest fixes say so: a stricter
// `quality` than the methods need (LoRA/QLoRA are near) otherwise reads as "out of memory" only.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { renderFixes } from '../../src/ui/plan-text.js';

const scenario = (quality: string): string => `name: 13B on one RTX 3090
model: llama-2-13b
job: { kind: fine-tune, methods: [full, lora, qlora], seq: 4096, globalBatch: 32, datasetTokens: 10000000 }
hardware:
  owned: [{ gpu: rtx-3090, count: 1 }]
  counts: { min: 1, max: 1 }
rank: time
quality: ${quality}
`;

describe('nearest fixes name the quality filter', () => {
  it('quality exact with only adapters fitting: the fixes say how many the quality filter pruned', () => {
    const file = '/tmp/plan-fixes-quality.yaml';
    const r = plan(planInputOf(file, parseScenario(file, scenario('exact'))));
    expect(r.plans).toHaveLength(0);
    const pruned = r.pruned.find((p) => p.code === 'quality')?.count ?? 0;
    expect(pruned).toBeGreaterThan(0);
    const text = renderFixes(r);
    expect(text).toContain(`${pruned.toLocaleString('en-US')} configurations are lossier than`);
    expect(text).toMatch(/a lossier quality \(exact, then near, then lossy\)/);
  });

  it('no quality line under quality lossy (nothing is pruned as lossier)', () => {
    const file = '/tmp/plan-fixes-quality.yaml';
    const r = plan(
      planInputOf(
        file,
        parseScenario(
          file,
          scenario('lossy').replace('methods: [full, lora, qlora]', 'methods: [full]'),
        ),
      ),
    );
    expect(r.plans).toHaveLength(0);
    expect(renderFixes(r)).not.toMatch(/lossier than/);
  });
});
