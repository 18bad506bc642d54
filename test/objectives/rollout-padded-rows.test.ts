/**
 * transformers' generate keeps a finished row in its batch, fed the pad token until the longest completion ends
 * (generation/utils.py `_sample`), so every row's KV cache grows to the longest: the trainer's own rollout
 * (`--rollout hf`) reads a context set by the longest completion (the cap, once a batch reaches it), not the mean.
 * vLLM drops a finished request, so its rollout's context follows the mean (time/objective.ts objectiveWork).
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { objectiveTimeOf } from '../helpers/objective-time.js';

// A large generation batch at long context on a card with little bandwidth: the decode step is bound by its KV read.
const base: RawFlags = {
  model: 'qwen2.5-7b',
  gpu: 't4',
  method: 'lora',
  weights: 'fp16',
  compute: 'fp16',
  'lora-rank': 16,
  objective: 'grpo',
  generations: 8,
  batch: 16,
  'grad-accum': 16,
  'prompt-tokens': 100,
  'max-completion-tokens': 2048,
  rollout: 'hf',
  framework: 'hf',
};

const rollout = (flags: RawFlags): number =>
  objectiveTimeOf({ ...base, ...flags }).r.objectivePhases.rollout;

describe('the trainer’s generate decodes every row of a batch to its longest completion', () => {
  it('at a cap every batch reaches, a shorter mean completion leaves the rollout unchanged', () => {
    expect(rollout({ 'completion-tokens': 1200 })).toBe(rollout({ 'completion-tokens': 1800 }));
  });

  it('vLLM drops finished requests: there a shorter mean reads less context', () => {
    const vllm = { rollout: 'vllm-colocate' };
    expect(rollout({ ...vllm, 'completion-tokens': 1200 })).toBeLessThan(
      rollout({ ...vllm, 'completion-tokens': 1800 }),
    );
  });
});
