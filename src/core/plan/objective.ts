/**
 * The planner's side of preference and RL objectives: the objective configurations a fine-tune
 * job's base configuration expands into (GRPO: rollout engine, colocated share, server GPUs), the GPUs a
 * vLLM server takes beside the trainers, and the bytes vLLM's colocated share adds on a given GPU.
 */
import { generatesInTrainer, OBJECTIVE_PROFILES } from '../../schema/objectives.js';
import { ROLLOUTS, type EstimateOptions } from '../../schema/estimate.js';
import { objectiveInto, type RawFlags } from '../../schema/flags.js';
import { grpoTokens } from '../../schema/objective-job.js';
import type { Scenario } from '../../schema/scenario.js';

/** One objective configuration: the flags objectiveInto reads and the plan id's part for it. */
export interface ObjectiveConfig {
  flags: RawFlags | null;
  idPart: string;
}

const SFT: readonly ObjectiveConfig[] = [{ flags: null, idPart: '' }];

/**
 * vLLM's colocated shares searched: TRL v1.9.0's default (grpo_config.py vllm_gpu_memory_utilization=0.3)
 * and a larger pool for long completions (TRL's GRPO docs colocate examples use 0.3 to 0.5).
 */
export const COLOCATE_SHARES = [0.3, 0.5] as const;

/** Largest GPU count the scenario searches (hardware.counts.max within limits.maxGpus). */
export const maxSearchedGpus = (s: Scenario): number =>
  Math.min(s.hardware.counts.max, s.limits.maxGpus ?? Infinity);

/**
 * Fewest GPUs a searched layout trains on: hardware.counts.min, or for an objective with a rollout half of it
 * rounded up, as a vLLM server takes up to as many GPUs as train (objectiveConfigs) and trainers plus server make
 * the job's count (TRL's server mode: `trl vllm-serve` on some GPUs of the node, training on the rest,
 * https://github.com/huggingface/trl/blob/v1.9.0/docs/source/vllm_integration.md).
 */
export function leastTrainingGpus(s: Scenario): number {
  const min = s.hardware.counts.min;
  const job = s.job;
  if (job.kind !== 'fine-tune' || !OBJECTIVE_PROFILES[job.objective].rollout) return min;
  return Math.max(1, Math.ceil(min / 2));
}

/** How many of a shape's `members` (layout indices) the job searches with `server` vLLM GPUs beside them. */
export function membersAtLeast(
  members: readonly number[],
  counts: readonly { count: number }[],
  server: number,
  least: number,
): number {
  let n = 0;
  for (const m of members) if (counts[m]!.count + server >= least) n++;
  return n;
}

/**
 * The objective configurations of a scenario's fine-tune job: none beyond SFT; the job's objective with
 * TRL's default reference (flags.ts objectiveInto); for GRPO every rollout mode: transformers generate, vLLM
 * colocated at each share, and a vLLM server on 1 .. gpus/2 of the GPUs (the rest train).
 */
export function objectiveConfigs(s: Scenario): readonly ObjectiveConfig[] {
  const job = s.job;
  if (job.kind !== 'fine-tune' || job.objective === 'sft') return SFT;
  if (!OBJECTIVE_PROFILES[job.objective].rollout)
    return [{ flags: { objective: job.objective }, idPart: job.objective }];
  // The same defaults as `estimate --objective grpo` (flags.ts; structure.ts checks the prompt is >= 1).
  const t = grpoTokens(job);
  const grpo = {
    objective: job.objective,
    generations: t.generations,
    'completion-tokens': t.completion,
    'prompt-tokens': t.prompt,
  };
  const out: ObjectiveConfig[] = ROLLOUTS.filter(generatesInTrainer).map((r) => ({
    flags: { ...grpo, rollout: r },
    idPart: `grpo-${r}`,
  }));
  for (const share of COLOCATE_SHARES)
    out.push({
      flags: { ...grpo, rollout: 'vllm-colocate', 'rollout-memory': share },
      idPart: `grpo-colocate${Math.round(share * 100)}`,
    });
  for (const r of serverGpuCounts(Math.floor(maxSearchedGpus(s) / 2)))
    out.push({
      flags: { ...grpo, rollout: 'vllm-server', 'rollout-gpus': r },
      idPart: `grpo-server${r}`,
    });
  return out;
}

/**
 * The vLLM server sizes searched, up to `half` of the GPUs: every count within one 8-GPU node (HGX/DGX,
 * https://www.nvidia.com/en-us/data-center/hgx/), then doubling node counts, so that a cluster-sized limit keeps
 * the search to tens of rollout configurations instead of one per GPU.
 */
export function serverGpuCounts(half: number): number[] {
  const out: number[] = [];
  for (let r = 1; r <= Math.min(half, 8); r++) out.push(r);
  for (let r = 16; r <= half; r *= 2) out.push(r);
  return out;
}

/** `o` with the objective configuration's fields (the same defaults `estimate --objective` applies). */
export function withObjectiveConfig(o: EstimateOptions, c: ObjectiveConfig): EstimateOptions {
  if (c.flags) objectiveInto(o, c.flags);
  return o;
}

export { serverGpus } from '../memory/objective.js';
