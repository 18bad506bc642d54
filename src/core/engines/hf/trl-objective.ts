/**
 * TRL's preference and RL trainers in the Hugging Face launch folder: the trainer a plan's
 * objective runs, its config block in hf-args.json, its train.py, and for GRPO server mode the launch.sh that
 * starts `trl vllm-serve` beside the trainers. Keys as read at TRL v1.9.0 (35def3ee): trl/trainer/
 * dpo_config.py, kto_config.py, grpo_config.py, trl/experimental/orpo/orpo_config.py,
 * trl/experimental/cpo/cpo_config.py, trl/scripts/vllm_serve.py, docs/source/grpo_trainer.md.
 */
import { trainingGpus, type EstimateOptions, type Objective } from '../../../schema/estimate.js';
import { stepsPerGeneration } from '../../memory/objective.js';
import { completionLimit } from '../../time/completion-length.js';
import { isAdapter, learningRate, nodesOf, preferenceLearningRate } from '../../launch/common.js';
import type { LaunchFile, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { ATTACH_PROBE_PY } from '../../launch/probe-py.js';

/** One TRL trainer: hf-args.json's `trainer` and config block, the Python names and a dataset line. */
export interface TrlTrainer {
  trainer: 'sft' | 'dpo' | 'orpo' | 'kto' | 'cpo' | 'grpo';
  block: string;
  module: string;
  config: string;
  cls: string;
  dataset: string;
  /** What the dataset holds (the train.py comment). */
  holds: string;
}

// Datasets the TRL v1.9.0 docs train each trainer on: docs/source/dpo_trainer.md (ultrafeedback_binarized),
// kto_trainer.md (kto-mix-14k), grpo_trainer.md (DeepMath-103K).
const PREFERENCE = 'trl-lib/ultrafeedback_binarized';
const PAIRS = 'preference pairs ("prompt", "chosen", "rejected")';

/**
 * The objectives the TRL launchers write (PPO and reward models are estimated, not written: no engine profile lists
 * them).
 */
export type WrittenObjective = Exclude<Objective, 'sft' | 'ppo' | 'reward' | 'prm'>;

export const TRL_TRAINERS: Record<WrittenObjective, TrlTrainer> = {
  dpo: {
    trainer: 'dpo',
    block: 'dpo_config',
    module: 'trl',
    config: 'DPOConfig',
    cls: 'DPOTrainer',
    dataset: PREFERENCE,
    holds: PAIRS,
  },
  kto: {
    trainer: 'kto',
    block: 'kto_config',
    module: 'trl',
    config: 'KTOConfig',
    cls: 'KTOTrainer',
    dataset: 'trl-lib/kto-mix-14k',
    holds: 'unpaired completions with a label ("prompt", "completion", "label")',
  },
  // ORPO and CPO moved to trl.experimental (trl/experimental/orpo/__init__.py, cpo/__init__.py at v1.9.0).
  orpo: {
    trainer: 'orpo',
    block: 'orpo_config',
    module: 'trl.experimental.orpo',
    config: 'ORPOConfig',
    cls: 'ORPOTrainer',
    dataset: PREFERENCE,
    holds: PAIRS,
  },
  simpo: {
    trainer: 'cpo',
    block: 'cpo_config',
    module: 'trl.experimental.cpo',
    config: 'CPOConfig',
    cls: 'CPOTrainer',
    dataset: PREFERENCE,
    holds: PAIRS,
  },
  grpo: {
    trainer: 'grpo',
    block: 'grpo_config',
    module: 'trl',
    config: 'GRPOConfig',
    cls: 'GRPOTrainer',
    dataset: 'trl-lib/DeepMath-103K',
    holds: 'prompts ("prompt")',
  },
};

/** The objective of a plan that runs a preference / RL trainer, or null for SFT (and PPO, reward: never written). */
export const trlObjective = (o: EstimateOptions): WrittenObjective | null =>
  o.objective !== undefined && o.objective in TRL_TRAINERS
    ? (o.objective as WrittenObjective)
    : null;

// DPOConfig.beta default 0.1 (dpo_config.py); KTOConfig.beta 0.1 (kto_config.py): written explicitly.
const PREFERENCE_BETA = 0.1;
// GRPO's KL coefficient where the plan keeps a reference: 0.04, DeepSeekMath's (Shao et al. 2024, §4.1.2);
// TRL v1.9.0's default beta=0.0 loads none (grpo_config.py).
const GRPO_BETA = 0.04;

/**
 * The starting learning rate the TRL launchers write: for GRPO, GRPOConfig's own default for a full fine-tune (1e-6,
 * grpo_config.py learning_rate at v1.9.0 L418 and v1.8.0 L416, "Defaults to 1e-6 instead of 5e-5") and ten times it
 * for adapters (1e-5: the "Recommended learning rates" table of TRL v1.9.0 docs/source/peft_integration.md, "GRPO |
 * 1.0e-6 | 1.0e-5", and its GRPO LoRA example "10x the base rate for GRPO with LoRA"); the preference objectives'
 * (launch/common.ts preferenceLearningRate), else the SFT one.
 */
export const trlLearningRate = (o: EstimateOptions): number =>
  o.objective === 'grpo'
    ? isAdapter(o)
      ? 1e-5
      : 1e-6
    : o.objective === 'orpo'
      ? TRL_ORPO_LR[isAdapter(o) ? 'adapter' : 'full']
      : (preferenceLearningRate(o) ?? learningRate(o));

/**
 * ORPO's starting learning rates on TRL's ORPOTrainer: its example script's, TRL v1.9.0 examples/scripts/orpo.py
 * (`--learning_rate 8e-6` full, `--learning_rate 8e-5` with `--use_peft --lora_r 16`, that run under rmsprop). ORPO
 * trains from the base model with the SFT term in its loss (Hong et al. 2024, arXiv:2403.07691): its authors'
 * Mistral-ORPO runs take 5e-6 full (xfactlab/orpo@a0775357 scripts/run_mistral_orpo_beta.sh), DPO's rates are not it.
 */
const TRL_ORPO_LR = { full: 8e-6, adapter: 8e-5 } as const;

/** The launch README's line for an ORPO learning rate taken from `source`, or null for another objective. */
const orpoLrNote = (o: EstimateOptions, lr: number, source: string): string | null =>
  o.objective === 'orpo'
    ? `learning_rate ${lr.toExponential(0)}: ${source}, not the SFT or DPO rate`
    : null;

/** The launch README's line for TRL's ORPO learning rate (TRL_ORPO_LR), or null for another objective. */
export const trlOrpoLrNote = (o: EstimateOptions): string | null =>
  orpoLrNote(o, trlLearningRate(o), "TRL's ORPO example (examples/scripts/orpo.py at v1.9.0)");

/**
 * An engine's ORPO rates beside TRL's: with adapters `adapterLr`, its own ORPO example's (`source`); a full fine-tune,
 * for which it ships no ORPO example, takes TRL's (TRL_ORPO_LR), the ORPOTrainer it runs.
 */
export function engineOrpoRates(adapterLr: number, source: string) {
  return {
    /** ORPO's starting learning rate, or null for another objective. */
    learningRate: (o: EstimateOptions): number | null =>
      o.objective !== 'orpo' ? null : isAdapter(o) ? adapterLr : TRL_ORPO_LR.full,
    /** The launch README's line for it, or null for another objective. */
    note: (o: EstimateOptions): string | null =>
      isAdapter(o) ? orpoLrNote(o, adapterLr, source) : trlOrpoLrNote(o),
  };
}

/** The launch README's line for GRPO's learning rate. */
export const trlGrpoLrNote = (o: EstimateOptions): string =>
  isAdapter(o)
    ? "learning_rate 1e-5: TRL's GRPO LoRA rate, ten times GRPOConfig's 1e-6 default (docs/source/peft_integration.md at v1.9.0), not the SFT rate"
    : "learning_rate 1e-6: TRL GRPOConfig's own default (trl/trainer/grpo_config.py at v1.9.0), not the SFT rate";

/** Config keys only SFTConfig has (sft_config.py v1.9.0), dropped from the other trainers' blocks. */
const SFT_ONLY = ['packing'];
/** Trainers without max_length (grpo_config.py has max_completion_length only). */
const NO_MAX_LENGTH = new Set(['grpo']);
/** Configs with activation_offloading (dpo_config.py, kto_config.py; not grpo, orpo, cpo at v1.9.0). */
const OFFLOADS_ACTIVATIONS = new Set(['dpo', 'kto']);

/** Why TRL's trainer for the plan's objective cannot run it as planned, or null. */
export function trlObjectiveBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  const objective = trlObjective(o);
  if (!objective) return null;
  const t = TRL_TRAINERS[objective];
  // kto_trainer.py#L806 (v1.9.0): "Actual (not effective) batch size must be > 1" (the KL term pairs the batch).
  if (objective === 'kto' && o.batch < 2)
    return 'TRL 1.9.0 KTOTrainer needs a micro-batch of at least 2 (its KL term pairs completions within the batch)';
  if (o.checkpointing === 'offload' && !OFFLOADS_ACTIVATIONS.has(objective))
    return `TRL ${t.config} has no activation_offloading (v1.9.0): use gradient checkpointing`;
  const liger = o.liger || o.chunkedLoss;
  // dpo_trainer.py __init__ (v1.9.0): "Liger DPO loss does not support precomputing reference log probabilities";
  // kto_trainer.py L828-L832 (v1.9.0): "Liger KTO loss does not support precomputing reference log probabilities".
  if (liger && (objective === 'dpo' || objective === 'kto') && o.reference === 'precomputed')
    return `TRL 1.9.0 ${t.cls}: the Liger ${objective.toUpperCase()} loss does not support precompute_ref_log_probs`;
  // dpo_trainer.py / grpo_trainer.py __init__, kto_trainer.py L834-L846: the fused loss reads lm_head.weight, so an
  // adapter there is refused.
  const fusedHead = objective === 'dpo' || objective === 'grpo' || objective === 'kto';
  if (liger && fusedHead && o.loraTargets.includes('lm_head'))
    return `TRL 1.9.0 ${t.cls}: use_liger_kernel is incompatible with a LoRA adapter on lm_head`;
  return null;
}

/** The trainer's config block (`x` as trainerInput gives it): the TrainingArguments of the SFT block plus the objective's own keys. */
export function trlObjectiveConfig(
  x: LaunchInput,
  common: Record<string, unknown>,
): { trainer: TrlTrainer; config: Record<string, unknown>; top: Record<string, unknown> } | null {
  const o = x.options;
  const objective = trlObjective(o);
  if (!objective) return null;
  const trainer = TRL_TRAINERS[objective];
  const config: Record<string, unknown> = { ...common };
  for (const k of SFT_ONLY) delete config[k];
  if (NO_MAX_LENGTH.has(objective)) delete config.max_length;
  const top: Record<string, unknown> = {};
  if (objective === 'dpo' || objective === 'kto') {
    config.beta = PREFERENCE_BETA;
    // dpo_config.py / kto_config.py precompute_ref_log_probs: one reference pass before training.
    config.precompute_ref_log_probs = o.reference === 'precomputed';
  }
  // CPOConfig loss_type="simpo" with cpo_alpha=0.0 is SimPO (cpo_config.py; docs/source/cpo_trainer.md).
  if (objective === 'simpo') Object.assign(config, { loss_type: 'simpo', cpo_alpha: 0.0 });
  if (objective === 'grpo') Object.assign(top, grpoKeys(o, config));
  return { trainer, config, top };
}

/** GRPOConfig's rollout keys into `config`; returns hf-args.json's top-level rollout fields. */
function grpoKeys(o: EstimateOptions, config: Record<string, unknown>): Record<string, unknown> {
  const maxModelLen = vllmMaxModelLen(o);
  Object.assign(config, {
    num_generations: o.generations,
    // --completion-tokens is the mean; TRL caps each completion at max_completion_length (its longest).
    max_completion_length: completionLimit(o.completionTokens!, o.maxCompletionTokens),
    // One generation batch per optimizer step: TRL's default, gradient_accumulation_steps (grpo_config.py).
    steps_per_generation: stepsPerGeneration(o),
    beta: o.reference === 'model' ? GRPO_BETA : 0.0,
    use_vllm: o.rollout !== 'hf',
  });
  if (o.rollout === 'vllm-colocate')
    Object.assign(config, {
      vllm_mode: 'colocate',
      vllm_gpu_memory_utilization: o.rolloutMemory,
      vllm_tensor_parallel_size: 1,
      vllm_max_model_length: maxModelLen,
      // --rollout-sleep: grpo_config.py v1.9.0 vllm_enable_sleep_mode (vllm_generation.py sleep(level=2)).
      ...(o.rolloutSleep === true ? { vllm_enable_sleep_mode: true } : {}),
    });
  if (o.rollout === 'vllm-server')
    Object.assign(config, { vllm_mode: 'server', vllm_max_model_length: maxModelLen });
  // GRPOConfig has no prompt limit since huggingface/trl#4847: train.py drops longer prompts with this.
  const top: Record<string, unknown> = { max_prompt_length: o.promptTokens };
  if (o.rollout === 'vllm-server')
    top.vllm_serve = {
      gpus: o.rolloutGpus,
      trainer_gpus: o.gpus, // trainerInput: server mode's gpus are the trainers'
      tensor_parallel_size: 1,
      data_parallel_size: o.rolloutGpus,
    };
  return top;
}

/**
 * vLLM's context for the rollout: the prompt and the longest completion GRPOConfig lets it reach
 * (max_completion_length), so a completion stops at that cap and not at vLLM's max_model_len.
 */
const vllmMaxModelLen = (o: EstimateOptions): number =>
  o.promptTokens! + completionLimit(o.completionTokens!, o.maxCompletionTokens);

/** The plan as its trainers see it: GRPO server mode trains on the GPUs the vLLM server leaves. */
export function trainerInput<T extends LaunchPlan>(x: T): T {
  const o = x.options;
  return o.rollout === 'vllm-server' ? { ...x, options: { ...o, gpus: trainingGpus(o) } } : x;
}

/** Why server mode cannot be written for the plan (one machine only), or null. */
export function serverModeBlocker(x: LaunchInput): string | null {
  if (x.options.rollout !== 'vllm-server') return null;
  return nodesOf(x).nodes > 1
    ? 'vramplan writes GRPO server mode on one machine (the vLLM server and the trainers share its GPUs)'
    : null;
}

/**
 * launch.sh for GRPO server mode: `trl vllm-serve` on the first rollout GPUs (docs/source/grpo_trainer.md:
 * "Make sure that the server is using different GPUs than the trainer ... CUDA_VISIBLE_DEVICES"), data
 * parallel over them (vllm_serve.py --data_parallel_size), and the trainers on the rest.
 */
export function serverLaunchScript(x: LaunchInput, trainCommand: string): LaunchFile {
  const o = x.options;
  const r = o.rolloutGpus ?? 1;
  const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i).join(',');
  const lines = [
    '#!/usr/bin/env bash',
    `# GRPO with a vLLM server (generated by vramplan): GPUs ${ids(0, r)} serve, ${ids(r, trainingGpus(o))} train.`,
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
    ...(x.powerLimitW !== null
      ? ['# Apply the power cap first (needs root): bash power-limit.sh']
      : []),
    `CUDA_VISIBLE_DEVICES=${ids(0, r)} trl vllm-serve --model ${x.modelRef} --tensor_parallel_size 1 --data_parallel_size ${r} --max_model_len ${vllmMaxModelLen(o)} &`,
    'SERVER=$!',
    'trap \'kill "$SERVER"\' EXIT',
    '# GRPOTrainer waits for the server (vllm_server_timeout, 240 s by default: grpo_config.py).',
    `CUDA_VISIBLE_DEVICES=${ids(r, trainingGpus(o))} ${trainCommand}`,
  ];
  return { path: 'launch.sh', content: `${lines.join('\n')}\n` };
}

// TRL v1.9.0 pyproject.toml: vllm = ["vllm>=0.17.0,<=0.25.1"]; the newest release in that range.
export const TRL_VLLM_PIN = '0.25.1';
/**
 * The torch vllm 0.25.1 pins: 2.11.0 (vLLM's torch pin by release, 0.20.0 .. 0.26.0 → torch==2.11.0:
 * unslothai/unsloth .github/scripts/kaggle_t4_ci/legs.py#L271-L276 at 015bdef; vllm-project/vllm#45082, the
 * closed 2.11.0 → 2.12.1 bump). Inside axolotl v0.18.0's torch>=2.11.0,<=2.12.1, so the same environment
 * holds the trainers and `trl vllm-serve`; vLLM takes transformers v5 since 0.19.1 (vllm-project/vllm#40146, vllm-project/vllm#30566).
 */
export const TRL_VLLM_TORCH = '2.11.0';

/** A placeholder reward (clearly marked) and the prompt filter for GRPO's train.py. */
const GRPO_EXTRAS = `
# PLACEHOLDER REWARD: replace with your task's reward (a verifier, a reward model, unit tests...). It only
# prefers completions of about 200 characters, so that the run goes end to end.
def placeholder_reward(completions, **kwargs):
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    return [-abs(200 - len(t)) / 200 for t in texts]


def prompt_tokens(example):
    p = example["prompt"]
    text = p if isinstance(p, str) else tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True)
    return len(tokenizer(text).input_ids)


# The plan's prompt length: longer prompts are dropped (GRPOConfig has no prompt limit).
dataset = dataset.filter(lambda e: prompt_tokens(e) <= args["max_prompt_length"])
`;

/** The imports a train.py opens with (the SFT script's and each TRL trainer's): its model loading needs them all. */
export const hfScriptImports = (adapter: boolean): string => `import json
import os
import sys

import torch
from datasets import load_dataset
${adapter ? 'from peft import LoraConfig\n' : ''}from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
    AutoModelForImageTextToText,
    AutoTokenizer,
    BitsAndBytesConfig,
)
`;

/** train.py for a preference / RL trainer (the SFT script's loading, then the trainer). */
export function objectiveTrainPy(t: TrlTrainer, adapter: boolean, loading: string): string {
  const grpo = t.trainer === 'grpo';
  const imports =
    t.module === 'trl'
      ? `from trl import ${t.config}, ${t.cls}`
      : `from ${t.module} import ${t.config}, ${t.cls}`;
  return `"""${t.cls} (TRL) on the plan in README.md (generated by vramplan). Run it through launch.sh."""
${hfScriptImports(adapter)}${imports}

with open(sys.argv[1] if len(sys.argv) > 1 else "hf-args.json") as f:
    args = json.load(f)

# First the training arguments: they set up DeepSpeed / FSDP before the weights are loaded.
training_args = ${t.config}(**args["${t.block}"])

${loading}# Replace with your data: ${t.holds}.
dataset = load_dataset("${t.dataset}", split="train")
${grpo ? GRPO_EXTRAS : ''}
trainer = ${t.cls}(
    model=model,
${grpo ? '    reward_funcs=[placeholder_reward],\n' : ''}    args=training_args,
    train_dataset=dataset,
    processing_class=tokenizer,
${adapter ? '    peft_config=LoraConfig(**args["lora_config"]),\n' : ''})
${ATTACH_PROBE_PY}trainer.train()
trainer.save_model()
`;
}
