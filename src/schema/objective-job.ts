/**
 * A fine-tune job's objective (DESIGN.md "Engines, serving and RL": `job.objective`, `job.rl`): supervised
 * fine-tuning by default, a preference objective (DPO, ORPO, KTO, SimPO) or GRPO with its rollout shape.
 */
import { z } from 'zod';
import { OBJECTIVES } from './estimate.js';

const count = (max: number) => z.number().int().min(1).max(max);

/** GRPO's rollout per prompt (TRL GRPOConfig num_generations, max_completion_length; the prompt's tokens). */
export const rlJobSchema = z
  .object({
    /** Completions sampled per prompt (TRL num_generations, at least 2; default 8 at TRL v1.9.0). */
    generations: z.number().int().min(2).max(65_536).optional(),
    /** Prompt tokens (default: the job's seq less the completion). */
    promptTokens: count(100_000_000).optional(),
    /** Generated tokens per completion (TRL max_completion_length; default 256 at TRL v1.9.0). */
    completionTokens: count(100_000_000).optional(),
  })
  .strict();

/** The fields a fine-tune job adds for its objective (spread into the fine-tune job's object). */
export const objectiveJobFields = {
  /** sft (default), dpo, orpo, kto, simpo or grpo; orthogonal to the methods. */
  objective: z.enum(OBJECTIVES).default('sft'),
  /** GRPO only: generations per prompt and the prompt and completion tokens. */
  rl: rlJobSchema.optional(),
};

export type RlJob = z.infer<typeof rlJobSchema>;
