/** GRPO options as the planner's tests build them: 8 completions of 1,024 tokens per 512-token prompt. */
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { objectiveInto, type RawFlags } from '../../src/schema/flags.js';

export const grpo = (over: Partial<EstimateOptions>, flags: RawFlags): EstimateOptions => {
  const o: EstimateOptions = { ...defaultOptions(over.method ?? 'lora'), ...over };
  objectiveInto(o, {
    objective: 'grpo',
    generations: 8,
    'completion-tokens': 1024,
    'prompt-tokens': 512,
    ...flags,
  });
  return o;
};
