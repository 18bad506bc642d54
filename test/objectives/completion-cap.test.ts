// --max-completion-tokens: TRL's max_completion_length, the cap a generation batch decodes to at most.
import { describe, expect, it } from 'vitest';
import { FlagError, optionsFromFlags } from '../../src/schema/flags.js';
import {
  completionLimit,
  longestCompletion,
  longestToMean,
  LONGEST_TO_MEAN_COMPLETION,
} from '../../src/core/time/completion-length.js';

const GRPO = { objective: 'grpo', method: 'lora', 'completion-tokens': 183, 'prompt-tokens': 256 };

describe('--max-completion-tokens', () => {
  it('reads the cap and keeps the mean', () => {
    const o = optionsFromFlags({ ...GRPO, 'max-completion-tokens': 200 });
    expect(o.maxCompletionTokens).toBe(200);
    expect(o.completionTokens).toBe(183);
    expect(optionsFromFlags(GRPO).maxCompletionTokens).toBeUndefined();
  });

  it('refuses a cap below the mean, and outside GRPO, in one line naming the flag', () => {
    const below = () => optionsFromFlags({ ...GRPO, 'max-completion-tokens': 100 });
    expect(below).toThrow(FlagError);
    expect(below).toThrow(/max-completion-tokens.*100.*at least --completion-tokens 183/);
    expect(() => optionsFromFlags({ method: 'lora', 'max-completion-tokens': 200 })).toThrow(
      /max-completion-tokens.*only with --objective/,
    );
    expect(() =>
      optionsFromFlags({ objective: 'ppo', method: 'full', 'max-completion-tokens': 200 }),
    ).toThrow(/only with --objective grpo/);
  });

  it('bounds the decode steps; the launchers write the cap, else the longest', () => {
    // 1.47 x 183 = 269.01 -> 270 decode steps uncapped; the Qwen2.5-3B notebook capped them at 200.
    expect(longestCompletion(183)).toBe(270);
    expect(longestCompletion(183, 200)).toBe(200);
    expect(longestCompletion(183, 768)).toBe(270);
    expect(completionLimit(183)).toBe(270);
    expect(completionLimit(183, 768)).toBe(768);
  });

  it('grows the longest with the generation batch, up to the cap', () => {
    // The logged batches' ratio at their 8; one completion's expected length is the mean.
    expect(longestToMean(8)).toBe(LONGEST_TO_MEAN_COMPLETION);
    expect(longestToMean(1)).toBe(1);
    for (let n = 2; n < 512; n++) expect(longestToMean(n + 1)).toBeGreaterThan(longestToMean(n));
    // Fewer than 8 completions stop sooner; more reach further, up to the cap the run set.
    expect(longestCompletion(183, 768, 4)).toBeLessThan(longestCompletion(183, 768));
    expect(longestCompletion(183, 768, 128)).toBeGreaterThan(longestCompletion(183, 768));
    expect(longestCompletion(183, 300, 128)).toBe(300);
    // Without a cap, the one the launchers write (the logged batches' longest) bounds a larger batch.
    expect(longestCompletion(183, undefined, 128)).toBe(completionLimit(183));
  });
});
