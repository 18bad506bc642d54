/**
 * What each training objective is, kept as data: the examples its loss reads, the references it takes (and the
 * one TRL uses where the user names none) and whether it generates completions while training. Flags, memory,
 * time and the planner read this table instead of comparing objective names; which engines write each
 * objective, with their trainer classes, stays with each engine (its profile's `objectives` and its launcher).
 */
import type { Framework, Objective, Reference, Rollout } from './estimate.js';

/** How an objective that generates while training samples: its defaults and limits (TRL's config). */
export interface Sampling {
  /** Completions per prompt: the default and the range TRL accepts. */
  generations: { default: number; min: number; max: number; why: string };
  /** Generated tokens per completion (the longest; --completion-tokens) and prompt tokens by default. */
  completionTokens: number;
  promptTokens: number;
  /** per_device_train_batch_size by default. */
  batch: number;
  /** The generation engines its trainer runs, and why the others are not. */
  rollouts: readonly Rollout[];
  rolloutsWhy: string;
  /** The training forward computes the completion's logits only (GRPO's logits_to_keep), not the prompt's. */
  completionLogitsOnly: boolean;
}

/**
 * The memory profile each rollout engine decodes with (time/objective.ts): transformers generate() dispatches the
 * policy's ops eagerly whatever its trainer (TRL v1.9.0 grpo_config.py use_vllm=False); a vLLM rollout,
 * colocated or served (use_vllm with vllm_mode "colocate" / "server"), runs vLLM's kernels.
 */
export const ROLLOUT_FRAMEWORKS: Readonly<Record<Rollout, Framework>> = {
  hf: 'hf',
  'vllm-colocate': 'vllm',
  'vllm-server': 'vllm',
};

/**
 * Whether each rollout generates in the trainer's own process with transformers generate() (TRL v1.9.0
 * grpo_config.py use_vllm=False): no rollout engine's weights, pool or weight sync; its KV cache and prefill peak
 * on the training GPUs between steps.
 */
export const ROLLOUT_IN_TRAINER: Readonly<Record<Rollout, boolean>> = {
  hf: true,
  'vllm-colocate': false,
  'vllm-server': false,
};

/** `r` generates in the trainer's own process (ROLLOUT_IN_TRAINER); false without a rollout. */
export const generatesInTrainer = (r: Rollout | undefined): boolean =>
  r !== undefined && ROLLOUT_IN_TRAINER[r];

export interface ObjectiveProfile {
  /**
   * What one training example is: a single sequence (SFT), a chosen/rejected pair (DPO, ORPO, SimPO: TRL v1.9.0
   * concatenates chosen and rejected along the batch, dpo_trainer.py DataCollatorForPreference, "batch is [chosen,
   * rejected]"), one labelled completion (KTO: its KL completions run under no_grad, kto_trainer.py
   * _compute_kl_logps), or a group of completions sampled from one prompt (GRPO).
   */
  example: 'sequence' | 'pair' | 'labelled' | 'group';
  /** The references its loss runs with; `why` says why the others are refused. */
  references: readonly Reference[];
  why: string;
  /** The reference TRL uses where the user names none. */
  defaultReference: Reference;
  /** Completions are generated during training by a rollout engine (GRPO, PPO). */
  rollout: boolean;
  /** How it samples (rollout objectives only). */
  sampling?: Sampling;
  /**
   * PPO's critic: a value model trained beside the policy and a frozen reward model, each the policy's
   * architecture (vramplan's assumption: TRL's examples pair a policy with a reward and value model of one
   * size), and the optimisation epochs over each generation batch.
   */
  critic?: { epochs: number };
  /**
   * KTO's KL estimate: each micro-batch the trainer runs the policy (no grad) over the batch's mismatched KL
   * completions, and the reference over them unless their log-probs were precomputed: one more forward pass of each
   * over a batch of the same size (https://github.com/huggingface/trl/blob/v1.9.0/trl/trainer/kto_trainer.py
   * _compute_loss lines 1487 and 1529-1543, _compute_kl_logps line 1280; v0.12.1 forward lines 1031-1058). Off for
   * loss_type 'apo_zero_unpaired', which vramplan does not model.
   */
  klForward?: true;
  /**
   * The trainer calls the model without labels and takes its loss from `outputs.logits` itself (TRL v1.9.0
   * trl/experimental/orpo/orpo_trainer.py L774-L780 and trl/experimental/cpo/cpo_trainer.py L817-L823,
   * concatenated_forward; neither reads use_liger_kernel): Liger's patched forward skips the logits only when labels
   * are passed (liger_kernel/transformers/model/llama.py L113-L115 `skip_logits = self.training and (labels is not
   * None or shift_labels is not None)`, linkedin/Liger-Kernel@ead96b6), so no fused or chunked loss runs and the
   * logits are whole.
   */
  readsLogits?: true;
  /**
   * The engine builds a sequence-classification model in place of the causal LM: a `score` Linear(hidden,
   * labels, bias=False) instead of the vocabulary-sized lm_head, applied to every position's last hidden state
   * and pooled at the last non-pad token (huggingface/transformers@00029cfa0ed780d1ddb6e5d199bd92e86c5791a2
   * src/transformers/modeling_layers.py GenericForSequenceClassification.forward: `logits = self.score(hidden_states)`
   * then `pooled_logits = logits[arange, last_non_pad_token]`). No lm_head weights and no vocabulary logits: the
   * step's logits are `labels` per token.
   */
  scoreHead?: { labels: number };
}

const TRL = 'https://github.com/huggingface/trl/blob/v1.9.0/trl';

/**
 * TRL v1.9.0: DPOTrainer / KTOTrainer evaluate a reference each step (a frozen copy for a full fine-tune, the base
 * with adapters disabled under PEFT: dpo_trainer.py __init__ and _compute_loss); ORPO and SimPO (CPO
 * loss_type="simpo") are reference-free; GRPO's beta defaults to 0.0, which loads no reference (grpo_trainer.py:
 * `if self.beta == 0.0: self.ref_model = None`), and samples completions each step (nothing to precompute).
 */
export const OBJECTIVE_PROFILES: Readonly<Record<Objective, ObjectiveProfile>> = {
  sft: {
    example: 'sequence',
    references: ['none'],
    why: 'supervised',
    defaultReference: 'none',
    rollout: false,
  },
  dpo: {
    example: 'pair',
    references: ['model', 'precomputed'],
    why: 'its loss needs the reference log-probs; under LoRA the reference is the base with adapters off',
    defaultReference: 'model',
    rollout: false,
  },
  kto: {
    example: 'labelled',
    references: ['model', 'precomputed'],
    why: 'its loss needs the reference log-probs; under LoRA the reference is the base with adapters off',
    defaultReference: 'model',
    rollout: false,
    klForward: true,
  },
  orpo: {
    example: 'pair',
    references: ['none'],
    why: 'a reference-free loss',
    defaultReference: 'none',
    rollout: false,
    readsLogits: true,
  },
  simpo: {
    example: 'pair',
    references: ['none'],
    why: 'a reference-free loss',
    defaultReference: 'none',
    rollout: false,
    readsLogits: true,
  },
  grpo: {
    example: 'group',
    references: ['model', 'none'],
    why: 'completions are sampled each step: nothing to precompute',
    defaultReference: 'none',
    rollout: true,
    // TRL v1.9.0 grpo_config.py: num_generations=8 (__post_init__: "GRPO requires at least 2 generations per
    // prompt"), max_completion_length=256; max_prompt_length 512 until its removal (huggingface/trl#4847);
    // per_device_train_batch_size 8 (TrainingArguments); use_vllm=False (transformers generate by default).
    sampling: {
      generations: {
        default: 8,
        min: 2,
        max: 65_536,
        why: 'GRPO compares at least 2 completions per prompt',
      },
      completionTokens: 256,
      promptTokens: 512,
      batch: 8,
      rollouts: ['hf', 'vllm-colocate', 'vllm-server'],
      rolloutsWhy: '',
      // grpo_trainer.py _get_per_token_logps_and_entropies: model(..., logits_to_keep=completion + 1).
      completionLogitsOnly: true,
    },
  },
  // TRL v1.9.0 trl/experimental/ppo: one response per query, generated by transformers generate
  // (ppo_trainer.py batch_generation over unwrap_model_for_generation; no vLLM path), max_new_tokens =
  // response_length (ppo_config.py default 53), num_ppo_epochs 4; a reference each step (a copy, or the policy
  // with adapters disabled under PEFT: ppo_trainer.py __init__), a value model trained with the policy
  // (PolicyAndValueWrapper) and a frozen reward model.
  ppo: {
    example: 'sequence',
    references: ['model'],
    why: 'the KL penalty reads the reference log-probs of each fresh response (ppo_trainer.py train)',
    defaultReference: 'model',
    rollout: true,
    sampling: {
      generations: { default: 1, min: 1, max: 1, why: 'PPO samples one response per query' },
      completionTokens: 53,
      promptTokens: 512,
      batch: 8,
      rollouts: ['hf'],
      rolloutsWhy: `TRL's PPOTrainer generates with transformers generate only (${TRL}/experimental/ppo/ppo_trainer.py batch_generation)`,
      // ppo_trainer.py train: forward(model, ...) then output.logits[:, context_length - 1 : -1] (all logits).
      completionLogitsOnly: false,
    },
    critic: { epochs: 4 },
  },
  // TRL v1.9.0 trl/trainer/reward_trainer.py: AutoModelForSequenceClassification with num_labels=1 (__init__
  // L385 "the only output of the model is the reward score"); DataCollatorForPreference batches
  // `chosen_ids + rejected_ids` into one forward (L204) and compute_loss chunks the scores in two for
  // -logsigmoid(r_chosen - r_rejected) (L744-L753); no reference model.
  reward: {
    example: 'pair',
    references: ['none'],
    why: 'a reward model trains on its own scores',
    defaultReference: 'none',
    rollout: false,
    scoreHead: { labels: 1 },
  },
  // TRL v1.9.0 trl/experimental/prm/prm_trainer.py: token classification (its collator
  // DataCollatorForTokenClassification, "Shapes are (batch_size, seq_len, num_labels)"), the model
  // AutoModelForTokenClassification with num_labels=2 (examples/scripts/prm.py L80-L81): a Linear(hidden, 2) `score`
  // over every position (transformers modeling_layers.py GenericForTokenClassification), one sequence per example.
  prm: {
    example: 'sequence',
    references: ['none'],
    why: 'a process reward model trains on its own step labels',
    defaultReference: 'none',
    rollout: false,
    scoreHead: { labels: 2 },
  },
};

/** The score head's labels where the objective trains a sequence-classification model (ObjectiveProfile.scoreHead). */
export const scoreHeadLabels = (o: { objective?: Objective | undefined }): number | null =>
  o.objective === undefined ? null : (OBJECTIVE_PROFILES[o.objective].scoreHead?.labels ?? null);

/** The options' objective trains a value model beside the policy and scores with a reward model (PPO). */
export const hasCritic = (o: { objective?: Objective | undefined }): boolean =>
  o.objective !== undefined && OBJECTIVE_PROFILES[o.objective].critic !== undefined;

/** The options' objective generates completions while training (GRPO's rollout). */
export const rollsOut = (o: { objective?: Objective | undefined }): boolean =>
  o.objective !== undefined && OBJECTIVE_PROFILES[o.objective].rollout;
