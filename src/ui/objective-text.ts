/** A preference / RL plan's objective in a few words (the plan table's technique column). */
import type { EstimateOptions } from '../schema/estimate.js';

/** e.g. "dpo", "grpo vLLM colocated 30%", "grpo vLLM server 2 GPUs", "grpo hf generate"; null for SFT. */
export function objectiveText(o: EstimateOptions): string | null {
  if (o.objective === undefined || o.objective === 'sft') return null;
  const ref = o.reference === 'precomputed' ? ' ref precomputed' : '';
  if (o.objective !== 'grpo') return `${o.objective}${ref}`;
  if (o.rollout === 'vllm-colocate')
    return `grpo vLLM colocated ${Math.round((o.rolloutMemory ?? 0) * 100)}%${o.rolloutSleep === true ? ' asleep in training' : ''}`;
  if (o.rollout === 'vllm-server') {
    const n = o.rolloutGpus ?? 1;
    return `grpo vLLM server ${n} GPU${n > 1 ? 's' : ''}`;
  }
  return 'grpo hf generate';
}
