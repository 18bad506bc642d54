/**
 * What each training objective is, kept as data: the examples its loss reads, the references it takes (and the
 * one TRL uses where the user names none) and whether it generates completions while training. Flags, memory,
 * time and the planner read this table instead of comparing objective names; which engines write each
 * objective, with their trainer classes, stays with each engine (its profile's `objectives` and its launcher).
 */
import type { Framework, Objective, Reference, Rollout } from './estimate.js';

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
  /** Completions are generated during training by a rollout engine (GRPO). */
  rollout: boolean;
}

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
  },
  orpo: {
    example: 'pair',
    references: ['none'],
    why: 'a reference-free loss',
    defaultReference: 'none',
    rollout: false,
  },
  simpo: {
    example: 'pair',
    references: ['none'],
    why: 'a reference-free loss',
    defaultReference: 'none',
    rollout: false,
  },
  grpo: {
    example: 'group',
    references: ['model', 'none'],
    why: 'completions are sampled each step: nothing to precompute',
    defaultReference: 'none',
    rollout: true,
  },
};

/** The options' objective generates completions while training (GRPO's rollout). */
export const rollsOut = (o: { objective?: Objective | undefined }): boolean =>
  o.objective !== undefined && OBJECTIVE_PROFILES[o.objective].rollout;
