/**
 * A colocated vLLM starts only where its share of the card (gpu_memory_utilization x the GPU) holds the
 * weights it loads (its own copy, or Unsloth's shared one) and one request of the prompt and completion
 * (vLLM's check_enough_kv_cache_memory): a 14B model's bf16 weights (27.5 GiB) overflow 30 % of an H100.
 */
import { describe, expect, it } from 'vitest';
import { buildEstimate, gpuCapacityBytes } from '../../src/core/estimate.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import type { ObjectiveExtras } from '../../src/core/memory/objective.js';
import { plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { objectiveInto, optionsFromFlags } from '../../src/schema/flags.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';

const SCENARIO = `
name: GRPO Qwen2.5-14B on one H100
model: qwen2.5-14b
job:
  kind: fine-tune
  objective: grpo
  methods: [lora]
  globalBatch: 64
  datasetTokens: 2000000
  rl: { generations: 8, promptTokens: 512, completionTokens: 2048 }
hardware:
  owned: [{ gpu: h100-sxm, count: 1 }]
  counts: { min: 1, max: 1 }
rank: cost
`;

const h100 = findGpu('h100-sxm');

/** GRPO of 8 completions of 2048 tokens for 512-token prompts, vLLM colocated on `share` of each GPU. */
const colocatedGrpoInto = (o: EstimateOptions, share: number): void => {
  objectiveInto(o, {
    objective: 'grpo',
    generations: '8',
    'prompt-tokens': '512',
    'completion-tokens': '2048',
    rollout: 'vllm-colocate',
    'rollout-memory': String(share),
  });
};

/** Each colocated plan's vLLM share holds the weights vLLM loads: its own copy or the one it shares with the trainer. */
const expectSharesHoldWeights = (colocated: readonly { options: EstimateOptions }[]): void => {
  const capacity = gpuCapacityBytes(h100);
  for (const p of colocated) {
    const e = estimateMemory(resolveModel('qwen2.5-14b'), p.options) as {
      objective?: ObjectiveExtras;
    };
    const held = e.objective!.rolloutWeights + e.objective!.rolloutSharedWeights;
    // 14.8B parameters: above 27 GiB in 16 bits, above 13 GiB in 8 bits or fewer (int8, nf4 bases).
    expect(held).toBeGreaterThan((p.options.weights === 'bf16' ? 27 : 13) * 2 ** 30);
    expect(p.options.rolloutMemory! * capacity).toBeGreaterThanOrEqual(held);
  }
};

describe('colocated vLLM start', () => {
  it('plans no Unsloth colocated share smaller than the weights vLLM shares', () => {
    const file = '/tmp/colocate-start.yaml';
    const r = plan(planInputOf(file, parseScenario(file, SCENARIO)));
    const colocated = r.plans.filter(
      (p) => p.options.rollout === 'vllm-colocate' && p.choices.engine === 'unsloth',
    );
    expect(colocated.length).toBeGreaterThan(0);
    expectSharesHoldWeights(colocated);
  });

  it("vLLM's own copy stays whole on the GPU when the trainer shards and offloads its parameters", () => {
    const arch = resolveModel('qwen2.5-14b');
    const rolloutWeights = (zero: string, offload: string): number => {
      const o = optionsFromFlags({
        model: 'qwen2.5-14b',
        method: 'lora',
        framework: 'hf',
        zero,
        offload,
        batch: '2',
        'grad-accum': '32',
      });
      colocatedGrpoInto(o, 0.5);
      const e = estimateMemory(arch, o) as { objective?: ObjectiveExtras };
      return e.objective!.rolloutWeights;
    };
    const whole = rolloutWeights('0', 'none');
    expect(whole).toBeGreaterThan(27 * 2 ** 30);
    expect(rolloutWeights('3', 'optimizer+params')).toBe(whole);
    expect(rolloutWeights('3', 'none')).toBe(whole);
  });

  it('plans no colocated share (TRL or Unsloth) smaller than the weights vLLM loads', () => {
    const file = '/tmp/colocate-start.yaml';
    // Beyond the first ten, where TRL's colocated plans rank among Unsloth's.
    const r = plan({ ...planInputOf(file, parseScenario(file, SCENARIO)), top: 100 });
    const colocated = r.plans.filter((p) => p.options.rollout === 'vllm-colocate');
    expect(colocated.some((p) => p.choices.engine !== 'unsloth')).toBe(true);
    expectSharesHoldWeights(colocated);
  });

  it('the estimate on an H100 does not fit at a 30 % share and fits at 50 %', () => {
    const fits = (share: number): boolean => {
      const o = optionsFromFlags({
        model: 'qwen2.5-14b',
        method: 'lora',
        'lora-targets': 'all-linear',
        framework: 'unsloth',
        batch: '2',
        'grad-accum': '32',
        checkpointing: 'full',
      });
      colocatedGrpoInto(o, share);
      return buildEstimate(resolveModel('qwen2.5-14b'), o, h100).fits === true;
    };
    expect(fits(0.3)).toBe(false);
    expect(fits(0.5)).toBe(true);
  });
});
