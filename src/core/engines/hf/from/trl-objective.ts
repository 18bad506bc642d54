/**
 * TRL's preference and RL trainer configs (DPOConfig, KTOConfig, ORPOConfig, CPOConfig, GRPOConfig at TRL
 * v1.9.0: trl/trainer/*_config.py, trl/experimental/{orpo,cpo}) → --objective and its flags. Shared by the
 * TrainingArguments/TRL JSON reader, axolotl (`rl:` with its `trl:` block) and LLaMA-Factory (`stage:`).
 */
import { FieldReader, FromError, type FromFlags } from '../../../from/common.js';

/** Keys only GRPOConfig has (grpo_config.py v1.9.0; max_prompt_length until TRL #4847). */
const GRPO_KEYS = [
  'num_generations',
  'max_completion_length',
  'use_vllm',
  'vllm_mode',
  'vllm_gpu_memory_utilization',
  'generation_batch_size',
  'steps_per_generation',
];
/** Keys of DPOConfig / KTOConfig / CPOConfig that name their trainer. */
const DPO_KEYS = [
  'precompute_ref_log_probs',
  'rpo_alpha',
  'ref_model_sync_steps',
  'sync_ref_model',
];
const KTO_KEYS = ['desirable_weight', 'undesirable_weight'];
const SIMPO_KEYS = ['simpo_gamma', 'cpo_alpha'];

/** Names a launched hf-args.json may carry in `trainer` (launch writes it), lower-cased. */
const TRAINERS: Record<string, string> = {
  sft: 'sft',
  dpo: 'dpo',
  kto: 'kto',
  orpo: 'orpo',
  cpo: 'simpo',
  simpo: 'simpo',
  grpo: 'grpo',
};

/** The objective a TRL config stands for, from an explicit trainer name or the keys only it has. */
export function trlObjectiveOf(doc: Record<string, unknown>, trainer?: string): string | null {
  if (trainer !== undefined) {
    const t = TRAINERS[trainer.toLowerCase().replace(/(trainer|config)$/, '')];
    if (!t) throw new FromError('trainer', trainer, Object.keys(TRAINERS).join(', '));
    return t;
  }
  const has = (keys: readonly string[]) => keys.some((k) => k in doc);
  if (has(GRPO_KEYS)) return 'grpo';
  if (has(KTO_KEYS)) return 'kto';
  if (has(SIMPO_KEYS) || doc.loss_type === 'simpo') return 'simpo';
  if (has(DPO_KEYS)) return 'dpo';
  return null;
}

/** The objective's fields of a TRL config into `flags` (the objective itself included). */
export function mapTrlObjective(r: FieldReader, objective: string, flags: FromFlags): void {
  flags.objective = objective;
  if (objective === 'dpo' || objective === 'kto') {
    if (r.bool('precompute_ref_log_probs')) flags.reference = 'precomputed';
    r.used.add('beta');
    r.used.add('loss_type');
    return;
  }
  if (objective !== 'grpo') {
    r.used.add('beta');
    return;
  }
  const n = r.int('num_generations', 2);
  if (n !== undefined) flags.generations = n;
  const completion = r.int('max_completion_length');
  if (completion !== undefined) flags['completion-tokens'] = completion;
  const prompt = r.int('max_prompt_length');
  if (prompt !== undefined) flags['prompt-tokens'] = prompt;
  // grpo_trainer.py: beta 0.0 (the v1.9.0 default) loads no reference model.
  const beta = r.raw('beta');
  if (typeof beta === 'number' && beta > 0) flags.reference = 'model';
  if (r.bool('use_vllm')) {
    // grpo_config.py vllm_mode default "colocate".
    const mode = r.str('vllm_mode') ?? 'colocate';
    if (mode !== 'colocate' && mode !== 'server')
      throw new FromError('vllm_mode', mode, 'colocate or server');
    flags.rollout = `vllm-${mode}`;
    const share = r.raw('vllm_gpu_memory_utilization');
    if (mode === 'colocate' && typeof share === 'number') flags['rollout-memory'] = share;
    else r.used.add('vllm_gpu_memory_utilization');
  } else {
    r.used.add('vllm_mode');
    r.used.add('vllm_gpu_memory_utilization');
    flags.rollout = 'hf';
  }
  for (const k of ['generation_batch_size', 'steps_per_generation', 'loss_type', 'temperature'])
    r.used.add(k);
}
