/**
 * Unsloth's DPO, ORPO, KTO and GRPO runs: unsloth-args.json's `trainer` and its TRL config block,
 * the from_pretrained kwargs of GRPO's shared-weights vLLM rollout, and train_unsloth.py for those trainers.
 *
 * Sources (the keys were read there):
 * - TRL v0.24.0 (the trl<=0.24.0 cap of unsloth 2026.8.19; huggingface/trl@04fd1203af4fc1e629f58e0ac0d0c5bb95f82a45):
 *   trl/trainer/dpo_config.py (max_prompt_length L315, max_length L323,
 *   padding_free L335, precompute_ref_log_probs L344, beta L392 default 0.1) and trl/trainer/grpo_config.py
 *   (max_prompt_length L300, num_generations L306, max_completion_length L313, steps_per_generation L339,
 *   use_vllm L399, vllm_mode L406, beta L479 default 0.0; no max_length, padding_free or packing),
 *   trl/trainer/orpo_config.py (max_length L97, beta L115 default 0.1; no padding_free) and
 *   trl/trainer/kto_config.py (max_length L119, beta L137 default 0.1, precompute_ref_log_probs L200; no
 *   padding_free); kto_trainer.py#L681 (per_device_train_batch_size <= 1 raises: the KL term pairs the batch).
 * - unsloth 015bdef rl.py#L4235-L4246: patch_trl_rl_trainers patches every trl.trainer.*_trainer (ORPO and KTO
 *   too: rl_replacements.py#L891 orpo_trainer, #L3028 kto_trainer).
 * - unsloth 015bdef0d94a241bcd94eec7a405b1700632180d: unsloth/models/loader.py#L429-L433
 *   (from_pretrained fast_inference=False, gpu_memory_utilization=0.5, max_lora_rank=64);
 *   unsloth/models/rl.py#L3970-L3994 (a model with a vllm_engine sets args.use_vllm and vllm_mode "colocate")
 *   and #L4047-L4048 (shared_weights: the trainer generates with the model's own vLLM engine);
 *   unsloth/models/llama.py#L3947 (PatchFastRL runs when unsloth is imported: no call needed).
 */
import type { EstimateOptions, Objective } from '../../../schema/estimate.js';
import { isAdapter } from '../../launch/common.js';
import type { LaunchPlan } from '../../launch/types.js';
import { stepsPerGeneration } from '../../memory/objective.js';
import { completionLimit } from '../../time/completion-length.js';

/** The objectives beyond SFT the Unsloth launcher writes. */
export const UNSLOTH_LAUNCH_OBJECTIVES: readonly Objective[] = ['dpo', 'orpo', 'kto', 'grpo'];

type UnslothObjective = 'dpo' | 'orpo' | 'kto' | 'grpo';

/** TRL's names for one objective: unsloth-args.json's `trainer` and block, the Python classes. */
export interface UnslothTrainer {
  trainer: UnslothObjective;
  block: `${UnslothObjective}_config`;
  config: string;
  cls: string;
}

const trainerOf = (name: UnslothObjective, cls: string): UnslothTrainer => ({
  trainer: name,
  block: `${name}_config`,
  config: `${cls}Config`,
  cls: `${cls}Trainer`,
});

export const UNSLOTH_TRAINERS: Record<UnslothObjective, UnslothTrainer> = {
  dpo: trainerOf('dpo', 'DPO'),
  orpo: trainerOf('orpo', 'ORPO'),
  kto: trainerOf('kto', 'KTO'),
  grpo: trainerOf('grpo', 'GRPO'),
};

// DPOConfig.beta default (dpo_config.py#L392 at v0.24.0), written explicitly; ORPOConfig's (orpo_config.py#L115,
// the odds-ratio weight λ) and KTOConfig's (kto_config.py#L137) are 0.1 too.
const DPO_BETA = 0.1;
// GRPO's KL coefficient where the plan keeps a reference: DeepSeekMath's 0.04 (as the TRL launcher writes).
const GRPO_BETA = 0.04;

const unslothObjective = (o: EstimateOptions): UnslothObjective | null =>
  o.objective !== undefined && o.objective in UNSLOTH_TRAINERS
    ? (o.objective as UnslothObjective)
    : null;

/** Why the Unsloth launcher cannot write the plan's preference / GRPO run as modelled, or null. */
export function unslothObjectiveBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  // kto_trainer.py#L681 (v0.24.0): the KL estimate pairs each prompt with another completion of the batch.
  if (o.objective === 'kto' && o.batch < 2)
    return 'TRL 0.24.0 KTOTrainer needs a micro-batch of at least 2 (its KL term pairs completions within the batch)';
  if (o.objective !== 'grpo') return null;
  if (o.rollout === 'vllm-server')
    return 'Unsloth GRPO generates on the training GPU (one GPU): no vLLM server mode';
  // fast_inference loads the trained LoRA into vLLM (max_lora_rank): the shared-weights rollout is for adapters.
  if (o.rollout === 'vllm-colocate' && !isAdapter(o))
    return 'Unsloth fast_inference shares LoRA / QLoRA weights with vLLM (max_lora_rank): full fine-tunes are not written with it';
  // unsloth_zoo ce232d6 vllm_utils.py: UNSLOTH_VLLM_STANDBY replaces gpu_memory_utilization with its own target
  // (0.925 x 0.95 on cards of 40 GB and more), so the plan's colocated share would not be the one that runs.
  if (o.rolloutSleep === true)
    return "Unsloth Standby (UNSLOTH_VLLM_STANDBY=1) sets vLLM's gpu_memory_utilization itself (0.925 x 0.95 on cards of 40 GB and more), not the plan's share: not written; plan without --rollout-sleep, or with TRL (vllm_enable_sleep_mode)";
  return null;
}

/**
 * The objective's trainer and TRL config block (from the SFT block's TrainingArguments), and the
 * from_pretrained kwargs it adds; null for SFT.
 */
export function unslothObjectiveArgs(
  o: EstimateOptions,
  sft: Record<string, unknown>,
): { t: UnslothTrainer; config: Record<string, unknown>; load: Record<string, unknown> } | null {
  const objective = unslothObjective(o);
  if (!objective) return null;
  const t = UNSLOTH_TRAINERS[objective];
  const config: Record<string, unknown> = { ...sft };
  delete config.packing; // SFTConfig only
  // ORPOConfig and KTOConfig have no padding_free (orpo_config.py, kto_config.py v0.24.0): a TypeError there.
  if (objective === 'orpo' || objective === 'kto') delete config.padding_free;
  if (objective !== 'grpo') {
    config.beta = DPO_BETA;
    if (objective !== 'orpo') config.precompute_ref_log_probs = o.reference === 'precomputed';
    // DPOConfig.max_prompt_length defaults to 512 (dpo_config.py#L315-L318 at v0.24.0) and tokenize_row keeps the
    // last 512 prompt tokens of every pair whatever max_length is (dpo_trainer.py#L738-L739): None leaves the
    // plan's max_length the only bound, as TRL v1.9.0's DPOConfig (no max_prompt_length) does. ORPO and KTO cut
    // the prompt only where prompt + completion pass max_length (orpo_trainer.py#L504, kto_trainer.py#L204).
    if (objective === 'dpo') config.max_prompt_length = null;
    return { t, config, load: {} };
  }
  // GRPOConfig has neither max_length nor padding_free (grpo_config.py v0.24.0).
  delete config.max_length;
  delete config.padding_free;
  Object.assign(config, {
    max_prompt_length: o.promptTokens,
    num_generations: o.generations,
    // --completion-tokens is the mean; TRL caps each completion at max_completion_length (its longest).
    max_completion_length: completionLimit(o.completionTokens!, o.maxCompletionTokens),
    // One generation batch per optimizer step: TRL's default, gradient_accumulation_steps (grpo_config.py).
    steps_per_generation: stepsPerGeneration(o),
    beta: o.reference === 'model' ? GRPO_BETA : 0.0,
    use_vllm: o.rollout === 'vllm-colocate',
  });
  if (o.rollout !== 'vllm-colocate') return { t, config, load: {} };
  // The shared-weights mode: vLLM inside the model (rl.py#L3993 sets colocate itself; written for readers).
  config.vllm_mode = 'colocate';
  const load = {
    // vLLM's max_model_len: the prompt and the longest completion (loader.py max_seq_length).
    max_seq_length: o.promptTokens! + completionLimit(o.completionTokens!, o.maxCompletionTokens),
    fast_inference: true,
    gpu_memory_utilization: o.rolloutMemory,
    max_lora_rank: o.loraRank,
  };
  return { t, config, load };
}

const PAIRS = 'preference pairs ("prompt", "chosen", "rejected")';
const ADAPTER_REFERENCE =
  '# ref_model=None: with LoRA the reference is the base with the adapters switched off (TRL creates a copy\n# for a full fine-tune).';
/** DPO, ORPO (reference-free) and KTO (unpaired, labelled completions): data, dataset, why, the trainer and its reference. */
const PREFERENCE_PY: Record<'dpo' | 'orpo' | 'kto', [string, string, string, string, boolean]> = {
  dpo: [PAIRS, 'trl-lib/ultrafeedback_binarized', ADAPTER_REFERENCE, 'DPO', true],
  orpo: [
    PAIRS,
    'trl-lib/ultrafeedback_binarized',
    '# ORPO has no reference model: the odds-ratio term is computed on the policy alone.',
    'ORPO',
    false,
  ],
  kto: [
    'completions with a label ("prompt", "completion", "label")',
    'trl-lib/kto-mix-14k',
    ADAPTER_REFERENCE,
    'KTO',
    true,
  ],
};

/** The trainer lines of train_unsloth.py for each objective (after the model and tokenizer are loaded). */
export function unslothObjectivePy(t: UnslothTrainer): string {
  if (t.trainer !== 'grpo') {
    const [data, dataset, why, name, reference] = PREFERENCE_PY[t.trainer];
    return `# Replace with your data: ${data}.
dataset = load_dataset("${dataset}", split="train")

${why}
trainer = ${name}Trainer(
    model=model,
${reference ? '    ref_model=None,\n' : ''}    args=${name}Config(**args["${t.trainer}_config"]),
    train_dataset=dataset,
    processing_class=tokenizer,
)
`;
  }
  return `# Replace with your data: prompts ("prompt").
dataset = load_dataset("trl-lib/DeepMath-103K", split="train")


# PLACEHOLDER REWARD: replace with your task's reward (a verifier, a reward model, unit tests...). It only
# prefers completions of about 200 characters, so that the run goes end to end.
def placeholder_reward(completions, **kwargs):
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    return [-abs(200 - len(t)) / 200 for t in texts]


# use_vllm with fast_inference: Unsloth's GRPOTrainer generates with model.vllm_engine, which shares the
# trained weights (no second copy).
trainer = GRPOTrainer(
    model=model,
    reward_funcs=[placeholder_reward],
    args=GRPOConfig(**args["grpo_config"]),
    train_dataset=dataset,
    processing_class=tokenizer,
)
`;
}
