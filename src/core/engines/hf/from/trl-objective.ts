/**
 * TRL's preference, reward and RL trainer configs (DPOConfig, KTOConfig, ORPOConfig, CPOConfig, GRPOConfig, RewardConfig at TRL
 * v1.9.0: trl/trainer/*_config.py, trl/experimental/{orpo,cpo}) → --objective and its flags. Shared by the
 * TrainingArguments/TRL JSON reader, axolotl (`rl:` with its `trl:` block) and LLaMA-Factory (`stage:`).
 * `trl <trainer> --config` (trl/scripts/{dpo,grpo,kto}.py at v1.9.0) parses with fail_with_unknown_args=False:
 * a key TRL no longer has (an older name) is dropped without a word; the readers say what it did.
 */
import { FieldReader, FromError, type FromFlags } from '../../../from/common.js';
import { LONGEST_TO_MEAN_COMPLETION, meanCompletion } from '../../../time/completion-length.js';

/** Keys only GRPOConfig (grpo_config.py v1.9.0) or the GRPO scripts (trl/scripts/grpo.py, open-r1) have. */
const GRPO_KEYS = [
  'num_generations',
  'use_vllm',
  'vllm_mode',
  'vllm_gpu_memory_utilization',
  'generation_batch_size',
  'steps_per_generation',
  'num_iterations',
  'epsilon_high',
  'scale_rewards',
  'mask_truncated_completions',
  'importance_sampling_level',
  'reward_funcs',
  'reward_model_name_or_path',
];
/** GRPOConfig loss_type values (grpo_config.py v1.9.0 docstring). */
const GRPO_LOSSES = ['grpo', 'dr_grpo', 'dapo', 'bnpo', 'cispo', 'sapo', 'luspo', 'vespo'];
/** Keys of DPOConfig (dpo_config.py v1.9.0, and rpo_alpha before the huggingface/trl#3906 refactor) that name DPO. */
const DPO_KEYS = [
  'precompute_ref_log_probs',
  'rpo_alpha',
  'ref_model_sync_steps',
  'sync_ref_model',
  'f_divergence_type',
  'ld_alpha',
  'discopop_tau',
  'use_weighting',
  'loss_weights',
];
/** DPOConfig loss_type values (dpo_config.py v1.9.0 loss_type help; sigmoid/hinge/ipo are CPO's too). */
const DPO_LOSSES = [
  'sigmoid',
  'hinge',
  'ipo',
  'exo_pair',
  'nca_pair',
  'robust',
  'bco_pair',
  'sppo_hard',
  'aot',
  'aot_pair',
  'aot_unpaired',
  'apo_zero',
  'apo_down',
  'discopop',
  'sigmoid_norm',
];
/** Keys only PPOConfig has (trl/experimental/ppo/ppo_config.py v1.9.0). */
const PPO_KEYS = [
  'num_ppo_epochs',
  'vf_coef',
  'cliprange_value',
  'response_length',
  'reward_model_path',
  'sft_model_path',
];
const KTO_KEYS = ['desirable_weight', 'undesirable_weight'];
/** Keys only RewardConfig has (trl/trainer/reward_config.py v1.9.0). */
const REWARD_KEYS = ['center_rewards_coefficient'];
/** Keys only PRMConfig has (trl/experimental/prm/prm_config.py v1.9.0). */
const PRM_KEYS = ['step_separator', 'train_on_last_step_only'];
// kto_config.py v1.9.0 loss_type choices.
const KTO_LOSSES = ['kto', 'apo_zero_unpaired'];
const SIMPO_KEYS = ['simpo_gamma', 'cpo_alpha'];
// cpo_config.py v1.9.0 (trl/experimental/cpo): loss_type "simpo" is SimPO, "alphapo" its AlphaPO variant.
const SIMPO_LOSSES = ['simpo', 'alphapo'];
/** Keys every preference trainer has and SFTConfig has not: a preference config, trainer unnamed. */
const PREFERENCE_KEYS = ['beta', 'max_prompt_length', 'label_smoothing', 'generate_during_eval'];
/** SFTConfig-only keys (sft_config.py v1.9.0): an SFT config whatever its file is called. */
const SFT_KEYS = [
  'dataset_text_field',
  'packing',
  'completion_only_loss',
  'assistant_only_loss',
  'max_seq_length',
];

/** Names a launched hf-args.json may carry in `trainer` (launch writes it), lower-cased. */
const TRAINERS: Record<string, string> = {
  sft: 'sft',
  dpo: 'dpo',
  kto: 'kto',
  orpo: 'orpo',
  cpo: 'simpo',
  simpo: 'simpo',
  grpo: 'grpo',
  ppo: 'ppo',
  // `trl reward` (trl/scripts/reward.py) and examples/scripts/reward_modeling.py at v1.9.0 run RewardTrainer.
  reward: 'reward',
  // examples/scripts/prm.py at v1.9.0 runs trl.experimental.prm.PRMTrainer.
  prm: 'prm',
};

const lossesOf = (doc: Record<string, unknown>): string[] =>
  (Array.isArray(doc.loss_type) ? doc.loss_type : [doc.loss_type])
    .filter((l): l is string => typeof l === 'string')
    .map((l) => l.toLowerCase());

/** The objective keys only one trainer has name (GRPO, KTO and SimPO first: they share DPO's), or null. */
function objectiveOfKeys(doc: Record<string, unknown>): string | null {
  const has = (keys: readonly string[]) => keys.some((k) => k in doc);
  const losses = lossesOf(doc);
  const loss = (names: readonly string[]) => losses.some((l) => names.includes(l));
  if (has(PPO_KEYS)) return 'ppo';
  if (has(REWARD_KEYS)) return 'reward';
  if (has(PRM_KEYS)) return 'prm';
  if (has(GRPO_KEYS) || loss(GRPO_LOSSES)) return 'grpo';
  if (has(KTO_KEYS) || loss(KTO_LOSSES)) return 'kto';
  if (has(SIMPO_KEYS) || loss(SIMPO_LOSSES)) return 'simpo';
  if (has(DPO_KEYS) || loss(DPO_LOSSES)) return 'dpo';
  if (has(SFT_KEYS)) return 'sft';
  return null;
}

/**
 * The trainer a config's file name or its folder names, the name first (`dpo_config.yaml` in TRL's CLI docs,
 * alignment-handbook's `recipes/<model>/orpo/config_full.yaml`): `trl <trainer> --config` and the recipes'
 * `scripts/<trainer>.py` take the trainer from the command, not the file.
 */
export function trainerOfPath(file: string): string | null {
  // The file's name, then its folder only: a project folder further up (~/dpo-experiments/) says less.
  const parts = file.split(/[\\/]/).reverse().slice(0, 2);
  for (const part of parts) {
    const words = part.toLowerCase().split(/[^a-z0-9]+/);
    const hit = words.find((w) => w in TRAINERS);
    if (hit !== undefined) return TRAINERS[hit]!;
  }
  return null;
}

const NAMES: Record<string, string> = {
  sft: 'SFT',
  dpo: 'DPO',
  kto: 'KTO',
  orpo: 'ORPO',
  simpo: 'SimPO',
  grpo: 'GRPO',
  ppo: 'PPO',
  reward: 'reward model',
  prm: 'process reward model',
};

/**
 * The objective a TRL config stands for: an explicit trainer name, the keys only its trainer has, the
 * trainer its file's name or folder names, then GRPO for a completion limit without max_length, and DPO
 * where only keys every preference trainer shares say it is one. null: nothing says (SFT).
 */
export function trlObjectiveOf(
  doc: Record<string, unknown>,
  trainer?: string,
  file?: string,
  warnings: string[] = [],
): string | null {
  if (trainer !== undefined) {
    const t = TRAINERS[trainer.toLowerCase().replace(/(trainer|config)$/, '')];
    if (!t) throw new FromError('trainer', trainer, Object.keys(TRAINERS).join(', '));
    return t;
  }
  const byKeys = objectiveOfKeys(doc);
  if (byKeys !== null) return byKeys;
  const byPath = file === undefined ? null : trainerOfPath(file);
  if (byPath !== null) {
    if (byPath !== 'sft')
      warnings.push(
        `objective: read as ${NAMES[byPath]} from the file's path (no key names the trainer); --objective overrides`,
      );
    return byPath;
  }
  // max_completion_length without max_length: GRPOConfig's (DPO/ORPO/CPO configs bound max_length).
  if ('max_completion_length' in doc && !('max_length' in doc)) return 'grpo';
  if (PREFERENCE_KEYS.some((k) => k in doc)) {
    warnings.push(
      `objective: read as DPO (${PREFERENCE_KEYS.filter((k) => k in doc).join(', ')}: keys of every TRL preference trainer, none naming one); give --objective orpo, kto or simpo for those`,
    );
    return 'dpo';
  }
  return null;
}

/** A config a user wrote for `trl` (not one `vramplan launch` wrote): where its warnings go. */
export interface TrlReadContext {
  warnings: string[];
}

/**
 * The pull request that took max_prompt_length (and, for DPO and KTO, max_completion_length) out of each
 * preference config, all before v0.29.0 (CPO and ORPO keep max_completion_length for encoder-decoders).
 */
const PROMPT_LIMIT_REMOVED: Record<string, string> = {
  dpo: 'huggingface/trl#3906',
  kto: 'huggingface/trl#4792, huggingface/trl#4808',
  orpo: 'huggingface/trl#4966',
  simpo: 'huggingface/trl#4965',
};

/** Preference configs: the reference, and the length limits TRL v1.9.0 no longer has. */
function mapPreference(
  r: FieldReader,
  objective: string,
  flags: FromFlags,
  user?: TrlReadContext,
): void {
  if ((objective === 'dpo' || objective === 'kto') && r.bool('precompute_ref_log_probs'))
    flags.reference = 'precomputed';
  for (const k of ['beta', 'loss_type', 'max_prompt_length', 'max_completion_length'])
    r.used.add(k);
  const gone =
    objective === 'dpo' || objective === 'kto'
      ? ['max_prompt_length', 'max_completion_length']
      : ['max_prompt_length'];
  const dropped = gone.filter((k) => r.has(k));
  if (user && dropped.length > 0)
    user.warnings.push(
      `${dropped.join(', ')}: not in TRL v1.9.0's ${NAMES[objective]} config (removed in ${PROMPT_LIMIT_REMOVED[objective]}), which drops ${dropped.length > 1 ? 'them' : 'it'}; max_length bounds prompt + completion`,
    );
}

/** GRPO's prompt bound, generations and rollout (grpo_config.py v1.9.0). */
function mapGrpo(r: FieldReader, flags: FromFlags, user?: TrlReadContext): void {
  const n = r.int('num_generations', 2);
  if (n !== undefined) flags.generations = n;
  const longest = r.int('max_completion_length');
  if (longest !== undefined) {
    // max_completion_length caps the longest completion; --completion-tokens is the mean.
    const mean = meanCompletion(longest);
    flags['completion-tokens'] = mean;
    user?.warnings.push(
      `max_completion_length: ${longest} is the longest completion; read as --completion-tokens ${mean}, the mean (longest / ${LONGEST_TO_MEAN_COMPLETION}, the ratio of logged GRPO runs)`,
    );
  }
  // steps_per_generation replaces TRL's default of one generation batch per optimizer step (grpo_config.py
  // __post_init__); generation_batch_size gives it as a batch (divided by the global batch once the trainer
  // processes are known: --generation-batch). TRL raises when both are set (grpo_config.py:1093 at v1.9.0).
  const spg = r.int('steps_per_generation', 1);
  const gb = r.int('generation_batch_size', 1);
  if (spg !== undefined && gb !== undefined)
    throw new FromError(
      'generation_batch_size',
      gb,
      "no steps_per_generation beside it (TRL raises: \"'generation_batch_size' and 'steps_per_generation' can not be both configured at the same time\", https://github.com/huggingface/trl/blob/v1.9.0/trl/trainer/grpo_config.py#L1093)",
    );
  if (spg !== undefined) flags['steps-per-generation'] = spg;
  if (gb !== undefined) flags['generation-batch'] = gb;
  const prompt = r.int('max_prompt_length');
  if (prompt !== undefined) flags['prompt-tokens'] = prompt;
  if (prompt !== undefined && user)
    // The prompt length the config plans for; TRL v1.9.0 no longer truncates prompts to it.
    user.warnings.push(
      `max_prompt_length: not a GRPOConfig field since TRL v0.28.0 (huggingface/trl#4847); v1.9.0 drops it and does not truncate prompts; read as --prompt-tokens ${prompt}, the longest prompt this config expects`,
    );
  // grpo_trainer.py: beta 0.0 (the v1.9.0 default) loads no reference model.
  const beta = r.raw('beta');
  if (typeof beta === 'number' && beta > 0) flags.reference = 'model';
  if (r.bool('use_vllm')) {
    // grpo_config.py vllm_mode default "colocate" since v1.0.0 (huggingface/trl#5255; "server" in v0.18–v0.29).
    const given = r.str('vllm_mode');
    const mode = given ?? 'colocate';
    if (mode !== 'colocate' && mode !== 'server')
      throw new FromError('vllm_mode', mode, 'colocate or server');
    if (given === undefined && user)
      user.warnings.push(
        "vllm_mode: not set; TRL v1.9.0 colocates vLLM on the training GPUs (default 'colocate' since v1.0.0, huggingface/trl#5255; 'server' in v0.18–v0.29): give --rollout vllm-server --rollout-gpus N if `trl vllm-serve` runs beside it",
      );
    flags.rollout = `vllm-${mode}`;
    const share = r.raw('vllm_gpu_memory_utilization');
    if (mode === 'colocate' && typeof share === 'number') flags['rollout-memory'] = share;
    else r.used.add('vllm_gpu_memory_utilization');
    // grpo_config.py v1.9.0 vllm_enable_sleep_mode (colocate only: vLLM sleeps between rollouts).
    if (mode === 'colocate' && r.bool('vllm_enable_sleep_mode')) flags['rollout-sleep'] = true;
    else r.used.add('vllm_enable_sleep_mode');
  } else {
    r.used.add('vllm_enable_sleep_mode');
    r.used.add('vllm_mode');
    r.used.add('vllm_gpu_memory_utilization');
    flags.rollout = 'hf';
  }
  for (const k of ['loss_type', 'temperature']) r.used.add(k);
}

/**
 * The objective's fields of a TRL config into `flags` (the objective itself included). `user` (configs
 * users write for `trl`): a warning for each key TRL v1.9.0 reads otherwise than the config expects.
 */
export function mapTrlObjective(
  r: FieldReader,
  objective: string,
  flags: FromFlags,
  user?: TrlReadContext,
): void {
  flags.objective = objective;
  if (objective === 'grpo') mapGrpo(r, flags, user);
  else if (objective === 'ppo') mapPpo(r, flags);
  // RewardConfig (reward_config.py v1.9.0): center_rewards_coefficient adds a term on the pair's scores, nothing held.
  else if (objective === 'reward') r.used.add('center_rewards_coefficient');
  // PRMConfig (prm_config.py v1.9.0): how steps are separated and labelled, nothing held.
  else if (objective === 'prm') for (const k of PRM_KEYS) r.used.add(k);
  else mapPreference(r, objective, flags, user);
}

/**
 * PPOConfig (trl/experimental/ppo/ppo_config.py v1.9.0): response_length is the generated tokens (max_new_tokens,
 * every response padded to it); num_ppo_epochs the optimisation epochs over each batch (--ppo-epochs) and
 * local_rollout_forward_batch_size the sequences generated and scored at once (--rollout-chunk); its mini-batches are
 * TRL's default in the estimate (objectives.ts), so another value is read and said.
 */
function mapPpo(r: FieldReader, flags: FromFlags): void {
  const response = r.int('response_length', 1);
  if (response !== undefined) flags['completion-tokens'] = response;
  const epochs = r.int('num_ppo_epochs', 1);
  if (epochs !== undefined) flags['ppo-epochs'] = epochs;
  const chunk = r.int('local_rollout_forward_batch_size', 1);
  if (chunk !== undefined) flags['rollout-chunk'] = chunk;
  const mini = r.raw('num_mini_batches');
  if (mini !== undefined && mini !== 1)
    throw new FromError(
      'num_mini_batches',
      mini,
      "1 (TRL's default, the value vramplan's PPO model runs)",
    );
  for (const k of [
    'vf_coef',
    'cliprange',
    'cliprange_value',
    'kl_coef',
    'gamma',
    'lam',
    'temperature',
  ])
    r.used.add(k);
}
