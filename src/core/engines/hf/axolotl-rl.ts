/**
 * axolotl's preference and RL runs: the `rl:` keys of axolotl.yaml for a plan's objective, its
 * dataset and, for GRPO, the `trl:` / `vllm:` blocks and the rewards.py module they name. Keys read at axolotl
 * main 067b021c (v0.18.0, trl==1.8.0 in its pyproject.toml):
 * - src/axolotl/utils/schemas/enums.py RLType (dpo, ipo, kto, orpo, simpo, grpo); schemas/config.py rl,
 *   rl_beta, precompute_ref_log_probs, simpo_gamma, cpo_alpha; schemas/trl.py TRLConfig (beta,
 *   max_completion_length, use_vllm, vllm_mode, reward_funcs, generation_batch_size, num_generations);
 *   schemas/vllm.py VllmConfig gpu_memory_utilization (default 0.9).
 * - src/axolotl/core/builders/rl.py#L122-L128 (trl.beta, else rl_beta → beta), #L134-L156 (SimPO: CPOConfig
 *   loss_type simpo with simpo_gamma, cpo_alpha); core/trainers/dpo/__init__.py#L36-L45 (sequence_len →
 *   max_length, precompute_ref_log_probs); core/trainers/grpo/__init__.py#L66-L98 (use_vllm, vllm_mode; in
 *   colocate mode vllm.gpu_memory_utilization → vllm_gpu_memory_utilization; no max_length,
 *   max_prompt_length) and #L248-L265 (reward_funcs: '{module}.{function}', at least two parameters).
 * - utils/data/rl.py#L318-L329 (dataset `type` → the dpo / orpo / kto prompt strategy; DPO, IPO, ORPO and
 *   SimPO drop pairs longer than sequence_len, #L143-L175); prompt_strategies/dpo/chatml.py intel,
 *   orpo/chat_template.py argilla, kto/chatml.py argilla_chat; docs/rlhf.qmd (GRPO rewards module).
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import { stepsPerGeneration } from '../../memory/objective.js';
import { completionLimit } from '../../time/completion-length.js';
import type { LaunchFile } from '../../launch/types.js';

/** The module GRPO's reward function and prompt transform live in (reward_funcs: rewards.<fn>). */
export const AXOLOTL_REWARDS_FILE = 'rewards.py';

// DPOConfig / KTOConfig beta default 0.1 (TRL v1.9.0 dpo_config.py, kto_config.py), as the HF launcher writes it;
// ORPO's λ is TRL's beta too (ORPOConfig beta 0.1; rl.py#L126 maps orpo_alpha onto it).
const PREFERENCE_BETA = 0.1;
// CPOConfig simpo_gamma default 0.5 (trl/experimental/cpo/cpo_config.py v1.9.0): rl.py passes cfg.simpo_gamma
// even when unset, so it is written; cpo_alpha 0.0 makes CPO's loss SimPO (docs/source/cpo_trainer.md).
const SIMPO_GAMMA = 0.5;
// GRPO's KL coefficient where the plan keeps a reference: DeepSeekMath's 0.04 (as the TRL launcher writes).
const GRPO_BETA = 0.04;

/** Each objective's dataset as axolotl's prompt strategies read it (the one line to replace). */
const DATASETS: Record<string, Record<string, unknown>> = {
  dpo: { path: 'Intel/orca_dpo_pairs', split: 'train', type: 'chatml.intel' },
  simpo: { path: 'Intel/orca_dpo_pairs', split: 'train', type: 'chatml.intel' },
  orpo: {
    path: 'argilla/ultrafeedback-binarized-preferences-cleaned',
    split: 'train',
    type: 'chat_template.argilla',
  },
  kto: { path: 'argilla/kto-mix-15k', split: 'train', type: 'chatml.argilla_chat' },
  grpo: { path: 'trl-lib/DeepMath-103K', split: 'train', type: 'rewards.prompt_transform' },
};

/** Why axolotl cannot write the plan's objective, or null. */
export function axolotlRlBlocker(o: EstimateOptions): string | null {
  if (o.objective === 'grpo' && o.rollout === 'vllm-server')
    return "axolotl's vllm-serve takes the last GPUs and its own launch: GRPO server mode is written for TRL's train.py only";
  return null;
}

/** The `rl:` keys (before `datasets`) and the dataset for the plan's objective; null for SFT. */
export function axolotlRlKeys(
  o: EstimateOptions,
  dp: number,
): { keys: Record<string, unknown>; dataset: Record<string, unknown> } | null {
  const objective = o.objective;
  if (objective === undefined || objective === 'sft') return null;
  const keys: Record<string, unknown> = { rl: objective };
  if (objective === 'orpo') keys.chat_template = 'chatml'; // chat_template.argilla applies it
  if (objective === 'dpo' || objective === 'kto') {
    keys.rl_beta = PREFERENCE_BETA;
    keys.precompute_ref_log_probs = o.reference === 'precomputed';
  }
  if (objective === 'orpo') keys.rl_beta = PREFERENCE_BETA;
  if (objective === 'simpo') Object.assign(keys, { simpo_gamma: SIMPO_GAMMA, cpo_alpha: 0.0 });
  if (objective === 'grpo') keys.trl = grpoTrl(o, dp);
  if (objective === 'grpo' && o.rollout === 'vllm-colocate')
    keys.vllm = { gpu_memory_utilization: o.rolloutMemory, tensor_parallel_size: 1 };
  return { keys, dataset: DATASETS[objective]! };
}

function grpoTrl(o: EstimateOptions, dp: number): Record<string, unknown> {
  const trl: Record<string, unknown> = {
    beta: o.reference === 'model' ? GRPO_BETA : 0.0,
    num_generations: o.generations,
    // --completion-tokens is the mean; TRL caps each completion at max_completion_length (its longest).
    max_completion_length: completionLimit(o.completionTokens!, o.maxCompletionTokens),
    // TRL's default generation batch: micro-batch x processes x gradient accumulation (grpo_config.py).
    generation_batch_size: o.batch * dp * stepsPerGeneration(o),
    use_vllm: o.rollout === 'vllm-colocate',
    reward_funcs: ['rewards.placeholder_reward'],
  };
  if (o.rollout === 'vllm-colocate') trl.vllm_mode = 'colocate';
  return trl;
}

/** rewards.py for axolotl GRPO: the placeholder reward and the prompt transform axolotl imports. */
export const AXOLOTL_REWARDS: LaunchFile = {
  path: AXOLOTL_REWARDS_FILE,
  content: `"""GRPO reward and dataset transform for axolotl.yaml (generated by vramplan); keep it beside the config."""


# PLACEHOLDER REWARD: replace with your task's reward (a verifier, a reward model, unit tests...). It only
# prefers completions of about 200 characters, so that the run goes end to end.
def placeholder_reward(prompts, completions, **kwargs):
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    return [-abs(200 - len(t)) / 200 for t in texts]


# Replace with your data's transform: GRPO needs a "prompt" column (trl-lib/DeepMath-103K has one).
def prompt_transform(cfg, *args, **kwargs):
    def transform_fn(example, tokenizer=None):
        return {"prompt": example["prompt"]}

    return transform_fn, {}
`,
};
