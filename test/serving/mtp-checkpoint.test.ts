/**
 * MTP speculative decoding needs the served checkpoint to carry the model's MTP layers. The quantized checkpoints
 * serve.sh has the user make (llm-compressor from the model transformers loads) drop them, so the planner and
 * launch keep MTP to checkpoints that ship them: Qwen3.5-27B in int4 on an RTX 5090 serves without MTP.
 */
import { describe, expect, it } from 'vitest';
import { launchBlocker } from '../../src/core/launch/index.js';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const SCENARIO = `
name: Qwen3.5-27B on one RTX 5090
model: qwen3.5-27b
job:
  kind: inference
  context: 16384
  concurrency: 4
  outputTokens: 5000000
hardware:
  owned: [{ gpu: rtx-5090, count: 1 }]
  counts: { min: 1, max: 1 }
rank: time
`;

const qwen = resolveModel('qwen3.5-27b');

describe('MTP needs a checkpoint that carries its layers', () => {
  it('the serving engines refuse MTP on a checkpoint the user must quantize, not on the model’s own', () => {
    for (const framework of ['vllm', 'sglang'] as const) {
      const at = (weights: string) => {
        const flags = { method: 'inference', framework, speculative: 'mtp', weights };
        const o = withEngineDefaults(optionsFromFlags(flags), flags);
        return forbiddenBy(ENGINE_PROFILES[framework].rules, {
          arch: qwen,
          options: o,
          dp: 1,
          accum: 1,
        });
      };
      expect(at('int4')?.id).toBe(`${framework}-mtp-needs-checkpoint-mtp`);
      expect(at('fp8')?.id).toBe(`${framework}-mtp-needs-checkpoint-mtp`);
      expect(at('bf16')).toBeNull();
    }
  });

  it('plans no MTP on a quantized Qwen3.5-27B, and the first plan launches', () => {
    const file = '/tmp/mtp-checkpoint.yaml';
    const r = plan(planInputOf(file, parseScenario(file, SCENARIO)));
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans)
      if (p.options.speculative === 'mtp') expect(p.options.weights).toBe('bf16');
    const first = r.plans[0]!;
    expect(launchBlocker({ arch: qwen, options: first.options })).toBeNull();
  });
});
