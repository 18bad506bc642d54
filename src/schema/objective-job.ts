/**
 * A fine-tune job's objective (DESIGN.md "Engines, serving and RL": `job.objective`, `job.rl`): supervised
 * fine-tuning by default, a preference objective (DPO, ORPO, KTO, SimPO) or GRPO with its rollout shape.
 */
import { z } from 'zod';
import { OBJECTIVES } from './estimate.js';
import { GRPO_COMPLETION_TOKENS, GRPO_GENERATIONS } from './flags.js';

const count = (max: number) => z.number().int().min(1).max(max);

/** GRPO's rollout per prompt (TRL GRPOConfig num_generations, max_completion_length; the prompt's tokens). */
export const rlJobSchema = z
  .object({
    /** Completions sampled per prompt (TRL num_generations, at least 2; default 8 at TRL v1.9.0). */
    generations: z.number().int().min(2).max(65_536).optional(),
    /** Prompt tokens (default: the job's seq less the completion). */
    promptTokens: count(100_000_000).optional(),
    /** Mean generated tokens per completion (default 256, TRL v1.9.0's max_completion_length). */
    completionTokens: count(100_000_000).optional(),
  })
  .strict();

/**
 * The objectives a scenario plans: every one a launched engine writes. PPO and (process) reward models are estimated
 * (`estimate --objective ppo|reward|prm`), never planned: no engine profile writes TRL's PPOTrainer, RewardTrainer or
 * PRMTrainer.
 */
type Planned = Exclude<(typeof OBJECTIVES)[number], 'ppo' | 'reward' | 'prm'>;
const ESTIMATED_TRAINERS: Record<string, string> = {
  ppo: 'PPOTrainer',
  reward: 'RewardTrainer',
  prm: 'PRMTrainer',
};
const ESTIMATED_ONLY: readonly string[] = Object.keys(ESTIMATED_TRAINERS);
const PLANNED_OBJECTIVES = OBJECTIVES.filter((o): o is Planned => !ESTIMATED_ONLY.includes(o)) as [
  Planned,
  ...Planned[],
];

/** The fields a fine-tune job adds for its objective (spread into the fine-tune job's object). */
export const objectiveJobFields = {
  /** sft (default), dpo, orpo, kto, simpo or grpo; orthogonal to the methods. */
  objective: z
    .enum(PLANNED_OBJECTIVES, {
      error: (iss) =>
        typeof iss.input === 'string' && ESTIMATED_ONLY.includes(iss.input)
          ? `${iss.input} is estimated, not planned (vramplan estimate --objective ${iss.input}): no launched engine writes TRL's ${ESTIMATED_TRAINERS[iss.input]}; planned: ${PLANNED_OBJECTIVES.join(', ')}`
          : undefined,
    })
    .default('sft'),
  /** GRPO only: generations per prompt and the prompt and completion tokens. */
  rl: rlJobSchema.optional(),
};

export type RlJob = z.infer<typeof rlJobSchema>;

/** GRPO's prompt + completion as the planner searches them (the prompt defaults to the job's seq less the completion). */
export function grpoTokens(job: { seq: number; rl?: RlJob }): {
  prompt: number;
  completion: number;
  generations: number;
} {
  // TRL v1.9.0 grpo_config.py defaults (flags.ts): num_generations=8, max_completion_length=256.
  const completion = job.rl?.completionTokens ?? GRPO_COMPLETION_TOKENS;
  return {
    completion,
    prompt: job.rl?.promptTokens ?? job.seq - completion,
    generations: job.rl?.generations ?? GRPO_GENERATIONS,
  };
}

/** A GRPO job whose rollout cannot be laid out (one-line scenario error fields), or null. */
export function rlJobIssue(
  job: { objective: string; seq: number; rl?: RlJob },
  maxContext: number,
  maxContextText: string,
): { field: string; value: number; allowed: string } | null {
  if (job.objective !== 'grpo') return null;
  const t = grpoTokens(job);
  if (t.prompt < 1)
    return {
      field: 'job.rl.completionTokens',
      value: t.completion,
      allowed: `fewer than job.seq (${job.seq}): the prompt is job.seq less the completion unless job.rl.promptTokens is set`,
    };
  if (t.prompt + t.completion > maxContext)
    return {
      field: 'job.rl.completionTokens',
      value: t.completion,
      allowed: `prompt + completion within ${maxContextText}`,
    };
  return null;
}
