/**
 * TRL's GRPOTrainer pads each process's generation batch to its longest prompt and completion before splitting it into
 * micro-batches (grpo_trainer.py `_generate_and_score_completions`, `split_tensor_dict`), so the policy trains every
 * micro-batch at the generation batch's longest completion (FrameworkProfile.grpoPadsGenerationBatch; time/objective.ts
 * policyTrainOptions), not at the mean.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { longestCompletion } from '../../src/core/time/completion-length.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { objectiveTimeOf } from '../helpers/objective-time.js';

const base: RawFlags = {
  model: 'qwen2.5-0.5b',
  gpu: 'a100-80gb-sxm',
  method: 'lora',
  weights: 'bf16',
  compute: 'bf16',
  'lora-rank': 16,
  objective: 'grpo',
  generations: 8,
  batch: 8,
  'grad-accum': 8,
  'prompt-tokens': 120,
  'max-completion-tokens': 1024,
  rollout: 'vllm-colocate',
  framework: 'hf',
};

const phases = (flags: RawFlags) => objectiveTimeOf({ ...base, ...flags }).r;

describe("GRPO's policy training at its generation batch's padded length", () => {
  it('TRL: a batch whose longest completion reaches the cap trains as if every completion did', () => {
    // 64 completions of mean 600: the longest is past the 1,024 cap, so the batch is padded to the cap.
    expect(longestCompletion(600, 1024, 64)).toBe(1024);
    expect(phases({ 'completion-tokens': 600 }).objectivePhases.policyTraining).toBe(
      phases({ 'completion-tokens': 1024 }).objectivePhases.policyTraining,
    );
  });

  it('the padding is not counted as the objective’s tokens', () => {
    const short = phases({ 'completion-tokens': 600 });
    const full = phases({ 'completion-tokens': 1024 });
    expect(short.stepSeconds).toBeGreaterThan(0);
    // Same step work; the shorter run's own tokens are fewer.
    expect(short.tokensPerSecondPerGpu).toBeLessThan(full.tokensPerSecondPerGpu);
  });
});
