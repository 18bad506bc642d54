// GPUs without bf16 (Turing, Volta) train in fp16 on the engines whose profile says fp16 (plan/loop.ts hardwareGate,
// plan/results.ts): an engine whose own rules forbid fp16 compute must not take that fallback.
import { describe, expect, it } from 'vitest';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

describe('the fp16 fallback and the engines that refuse fp16', () => {
  it('an engine with fp16 in its profile has no forbid rule that fp16 compute alone trips', () => {
    const arch = resolveModel('llama-3.1-8b');
    for (const profile of Object.values(ENGINE_PROFILES)) {
      if (!profile.fp16) continue;
      const method = profile.methods.includes('full') ? 'full' : profile.methods[0]!;
      const base = { ...defaultOptions(method), framework: profile.framework };
      const trips = (compute: 'bf16' | 'fp16') =>
        profile.rules.filter(
          (r) =>
            r.effect === 'forbid' &&
            r.applies({ arch, options: { ...base, compute }, dp: 1, accum: 1 }),
        );
      const fp16Only = trips('fp16').filter((r) => !trips('bf16').includes(r));
      expect({ engine: profile.id, rules: fp16Only.map((r) => r.id) }).toEqual({
        engine: profile.id,
        rules: [],
      });
    }
  });

  it('torchtitan, whose mixed precision takes bfloat16 or float32 only, plans nothing on T4s', () => {
    const scenario = scenarioSchema.parse({
      name: 't4-full',
      model: 'qwen3-1.7b',
      job: { kind: 'fine-tune', methods: ['full'], seq: 1024, globalBatch: 32, datasetTokens: 5e6 },
      hardware: { owned: [{ gpu: 't4', count: 2 }], counts: { min: 2, max: 2 } },
      search: { framework: 'torchtitan' },
      rank: 'time',
    });
    const r = plan(planInputOf('test.yaml', scenario));
    expect(r.plans).toEqual([]);
  });
});
