/**
 * Unsloth launcher: unsloth-args.json (FastLanguageModel.from_pretrained / get_peft_model kwargs and a TRL
 * SFTConfig, or DPOConfig / GRPOConfig with `trainer`: objective.ts), train_unsloth.py, requirements.txt and
 * launch.sh: one python process on one GPU, or torchrun on several (DDP, native FSDP2: launch-multi.ts).
 *
 * Sources read (the pins below are what the keys were checked against):
 * - unsloth main at 015bdef0d94a241bcd94eec7a405b1700632180d (version 2026.8.19, 2026-08-22): the newest
 *   source this repo could read; 2026.10.9's source was not available, its API is assumed unchanged.
 * - unsloth-zoo main at ce232d6cef9cb8cd34cd3727906131622177436b (version 2026.8.13).
 * - TRL tag v0.24.0 (04fd1203af4fc1e629f58e0ac0d0c5bb95f82a45): trl/trainer/sft_config.py.
 * - transformers v5 training_args.py at 00349ae87eddc872ffa21a8a54f264375a0056a8 (OptimizerNames,
 *   warmup_steps int-or-float; no warmup_ratio).
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import {
  isAdapter,
  learningRate,
  loadDtype,
  MAX_GRAD_NORM,
  preferenceLearningRate,
  preferenceLrNote,
} from '../../launch/common.js';
import { needsRocmTorch, withRocmTorch } from '../../launch/rocm-torch.js';
import { vllmRocmLines } from '../vllm/rocm-wheel.js';
import { trainerOptim } from '../hf/trainer.js';
import { engineOrpoRates } from '../hf/trl-objective.js';
import { UNSLOTH_TORCH } from './profile.js';
import { UNSLOTH_MEMORY } from './memory.js';
import { loadsPerRoleReexport } from '../../memory/setup.js';
import { loraTargetModules, namesModules } from '../../launch/modules.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { ATTACH_PROBE_PY } from '../../launch/probe-py.js';
import { changesFor, type RuleInput } from '../rules.js';
import { OFFLOAD_MIN_SEQ, UNSLOTH_RULES } from './rules.js';
import {
  unslothObjectiveArgs,
  unslothObjectiveBlocker,
  unslothObjectivePy,
  type UnslothTrainer,
} from './objective.js';
import { floatCompute } from '../../../schema/estimate.js';
import { UNSLOTH_ARGS_FILE } from './launch-folder.js';
import {
  RANK_DEVICE_PY,
  torchrunBlock,
  torchrunLaunchSh,
  torchrunNotes,
  type TorchrunBlock,
} from './launch-multi.js';

export const UNSLOTH_ENGINE = 'Unsloth';
export const UNSLOTH_SCRIPT = 'train_unsloth.py';

/**
 * Exact pins. unsloth/unsloth_zoo: the releases of 2026-11-26. The rest sit inside the caps of unsloth
 * 2026.8.19 pyproject.toml [huggingfacenotorch] (transformers <=5.5.0, trl <=0.24.0, datasets <4.4.0) and
 * unsloth_zoo 2026.8.13 (torch <2.13.0): https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/pyproject.toml
 * https://github.com/unslothai/unsloth-zoo/blob/ce232d6cef9cb8cd34cd3727906131622177436b/pyproject.toml
 */
export const UNSLOTH_PINS = {
  unsloth: '2026.10.9',
  unsloth_zoo: '2026.10.9',
  // Newest under zoo's torch<2.13.0 that unsloth's own pyproject names (intelgputorch2120 wheel URLs).
  torch: UNSLOTH_TORCH,
  // The caps: transformers<=5.5.0 (excludes 5.0.0, 5.1.0), trl<=0.24.0.
  transformers: '5.5.0',
  trl: '0.24.0',
  // peft>=0.18.0 and bitsandbytes>=0.45.5,!=0.46.0,!=0.48.0: no cap; the current releases.
  peft: '0.21.2',
  bitsandbytes: '0.50.2',
  // datasets>=3.4.1,!=4.0.*,!=4.1.0,<4.4.0; 4.3.0 is what unsloth's own [studio] extra pins.
  datasets: '4.3.0',
} as const;

/** Data-parallel degree and micro-batches for the rules (accumulation is not known from a plan: 1). */
const ruleInput = (x: LaunchPlan, accum = 1): RuleInput => {
  const o = x.options;
  return { arch: x.arch, options: o, dp: o.gpus / (o.tp * o.pp * o.cp), accum };
};

/** Why Unsloth cannot run `x` as given, or null (cheap: the planner asks often). */
export function unslothBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.method === 'inference')
    return 'the plan is inference: the Unsloth launcher writes training runs (serve it with vLLM or transformers)';
  if (x.arch.kind !== 'causal-lm')
    return `the Unsloth launcher writes FastLanguageModel + SFTTrainer runs for causal LMs only (${x.arch.id} is ${x.arch.kind})`;
  if (o.weights === 'fp8' || o.weights === 'int4')
    return `${o.weights} base weights: the launcher loads through bitsandbytes (load_in_4bit NF4 or load_in_8bit) only`;
  if (o.offload !== 'none')
    return 'the launcher writes no FSDP2 CPU offload (UNSLOTH_FSDP2_CPU_OFFLOAD): plan without offload';
  if (o.zero > 0 && o.gpus <= 1)
    return 'native FSDP2 needs several GPUs (WORLD_SIZE > 1): a one-GPU Unsloth run has no ZeRO stage';
  if (o.optimizerInBackward) return 'optimizer-in-backward has no TrainingArguments switch';
  if (o.sparsity > 0) return 'sparse weights have no Unsloth switch';
  if (o.checkpointing === 'selective')
    return 'Unsloth checkpoints whole layers (use_gradient_checkpointing True or "unsloth"): no selective recompute';
  const opt = trainerOptim(o);
  if ('reason' in opt) return opt.reason;
  if (isAdapter(o) && !namesModules(x.arch)) {
    if (!hasTower(x.arch))
      return `no module-name table for model_type '${x.arch.modelType}': Unsloth needs explicit target_modules`;
    if (o.modulesToSave || o.loraTargets.some((t) => t === 'embed' || t === 'lm_head'))
      return `model_type '${x.arch.modelType}': the launcher writes FastVisionModel's finetune_* layer switches (no target_modules), which adapt attention and MLP linears only: no embed_tokens / lm_head target`;
  }
  return unslothObjectiveBlocker(x);
}

const LINEAR = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;

/** get_peft_model target_modules: explicit names (all-linear expanded: rule unsloth-all-linear-expanded). */
function targetModules(x: LaunchInput): { names: string[]; notes: string[] } {
  const o = x.options;
  const listed = o.loraAllLinear
    ? [...LINEAR, ...o.loraTargets.filter((t) => t === 'embed' || t === 'lm_head')]
    : o.loraTargets;
  // --modules-to-save: Unsloth trains embed_tokens / lm_head targets fully (modules_to_save, llama.py#L3318).
  const targets = [...listed, ...(o.modulesToSave ?? []).filter((m) => !listed.includes(m))];
  // A checkpoint from_pretrained swaps for Unsloth's per-role re-export (UNSLOTH_MEMORY.perRoleReexports: a
  // LlamaForCausalLM or MistralForCausalLM) takes Llama's module names: q_proj, ..., gate_proj, up_proj.
  const reexport = loadsPerRoleReexport(x.arch, UNSLOTH_MEMORY);
  const arch = reexport ? { ...x.arch, modelType: 'llama' } : x.arch;
  const m = loraTargetModules(arch, { ...o, loraAllLinear: false, loraTargets: targets });
  return { names: m.targetModules === 'all-linear' ? [] : m.targetModules, notes: m.notes };
}

/** use_gradient_checkpointing: "unsloth" offloads each layer's input to CPU (unsloth_zoo Unsloth_Offloaded_Gradient_Checkpointer). */
function checkpointingOf(o: EstimateOptions): boolean | 'unsloth' {
  // forward saves hidden_states.to("cpu", non_blocking=True): https://github.com/unslothai/unsloth-zoo/blob/ce232d6cef9cb8cd34cd3727906131622177436b/unsloth_zoo/gradient_checkpointing.py#L259-L271
  if (o.checkpointing === 'offload') return 'unsloth';
  return o.checkpointing !== 'none';
}

// Long on purpose: one flat list of the args file's keys, each with the source line it was checked at.
export function emitUnsloth(x: LaunchInput): EngineOutput {
  const engine = UNSLOTH_ENGINE;
  const o = x.options;
  const why = unslothBlocker(x);
  if (why) return { engine, ok: false, reason: why };
  // llama.py#L2436: a bfloat16 dtype on a GPU without bfloat16 silently becomes float16.
  if (floatCompute(o.compute) === 'bf16' && !x.gpu.supportsBf16)
    return {
      engine,
      ok: false,
      reason: `${x.gpu.name} has no bfloat16: Unsloth would switch the plan's bf16 to float16 (plan fp16 instead)`,
    };
  const opt = trainerOptim(o);
  if ('reason' in opt) return { engine, ok: false, reason: opt.reason };
  const notes: string[] = [];
  const rules = changesFor(UNSLOTH_RULES, ruleInput(x, x.gradAccum));
  for (const r of rules) notes.push(`${r.says} (rule ${r.id})`);
  const gc = checkpointingOf(o);
  const shortOffload = rules.some((r) => r.id === 'unsloth-offload-gc-short-seq');
  // FastLanguageModel.from_pretrained kwargs: loader.py#L410-L437 (model_name, max_seq_length, dtype,
  // load_in_4bit, load_in_8bit, full_finetuning, use_gradient_checkpointing all exist at 2026.8.19).
  const fromPretrained: Record<string, unknown> = {
    model_name: x.modelRef,
    max_seq_length: shortOffload ? OFFLOAD_MIN_SEQ : o.seq,
    // The model's float dtype (loadDtype: fp32 when fp32 weights are trained).
    dtype: loadDtype(o),
    load_in_4bit: o.weights === 'nf4',
    load_in_8bit: o.weights === 'int8',
    full_finetuning: o.method === 'full',
    use_gradient_checkpointing: gc,
  };
  // from_pretrained(unsloth_tiled_mlp=True) patches every MLP with unsloth_zoo's TiledMLP (loader.py @015bdef0).
  if (o.tiledMlp) fromPretrained.unsloth_tiled_mlp = true;
  let peft: Record<string, unknown> | null = null;
  if (isAdapter(o) && !namesModules(x.arch)) {
    peft = wrapperPeft(x, gc);
    notes.push(...wrapperNotes(x));
  } else if (isAdapter(o)) {
    const t = targetModules(x);
    notes.push(...t.notes);
    // FastLlamaModel.get_peft_model kwargs: llama.py#L3061-L3090.
    peft = {
      r: o.loraRank,
      target_modules: t.names,
      lora_alpha: unslothLoraAlpha(o.loraRank),
      lora_dropout: 0, // rule unsloth-lora-dropout-zero
      bias: 'none', // llama.py#L3248: other values skip the fast path
      use_gradient_checkpointing: gc,
      random_state: 3407, // get_peft_model's default seed (llama.py#L3080)
    };
    // A multimodal checkpoint loads through FastVisionModel, whose get_peft_model (FastBaseModel's, unsloth
    // 2026.10.9 models/vision.py) defaults finetune_vision_layers=True: written explicitly, true only when images
    // are trained, as Unsloth's vision notebooks do; 'all-linear' then reaches the tower's every block linear
    // (get_peft_regex), and vision.py turns the tower on for 'all-linear' itself.
    if (isVision(x)) {
      peft.finetune_vision_layers = (o.images ?? 0) > 0;
      if (
        peft.finetune_vision_layers &&
        o.loraAllLinear &&
        t.names.every((n) => !/embed|lm_head/.test(n))
      )
        peft.target_modules = 'all-linear';
    }
    if (o.loraTargets.includes('embed') || o.loraTargets.includes('lm_head') || o.modulesToSave)
      notes.push(
        'Unsloth trains embed_tokens / lm_head fully (modules_to_save) when they are targets (llama.py#L3318)',
      );
  }
  notes.push(...planNotes(o));
  if (isAdapter(o)) notes.push(UNSLOTH_RECIPE_NOTE);
  if (o.objective === 'grpo')
    notes.push(
      "learning_rate 5e-6: Unsloth's GRPO notebooks (unslothai/notebooks nb/Llama3.1_(8B)-GRPO.ipynb), not the SFT rate",
    );
  const preferenceNote = preferenceLrNote(o) ?? UNSLOTH_ORPO.note(o);
  if (preferenceNote) notes.push(preferenceNote);
  const sft = sftConfig(x, opt.optim, gc);
  // DPO / GRPO: TRL's trainer and its config block instead of SFTConfig (objective.ts).
  const rl = unslothObjectiveArgs(o, sft);
  const args = rl
    ? {
        from_pretrained: { ...fromPretrained, ...rl.load },
        get_peft_model: peft,
        trainer: rl.t.trainer,
        [rl.t.block]: rl.config,
      }
    : {
        from_pretrained: fromPretrained,
        get_peft_model: peft,
        sft_config: sft,
        ...embeddingTrainer(o, sft),
      };
  const vllm = rl !== null && 'fast_inference' in rl.load;
  // Several GPUs: torchrun, its block in the args file (read back by --from), the per-rank device lines.
  const tr = torchrunBlock(x);
  if (tr) notes.push(...torchrunNotes(tr, o.zero));
  const sftScript = 'unsloth_trainer' in args ? UNSLOTH_TRAINER_PY : TRAIN_UNSLOTH_PY;
  if (sftScript === UNSLOTH_TRAINER_PY) notes.push(EMBEDDING_LR_NOTE);
  const script = withLoaderClass(rl ? objectiveScript(rl.t) : sftScript, isVision(x));
  return {
    engine,
    ok: true,
    files: [
      {
        path: UNSLOTH_ARGS_FILE,
        content: `${JSON.stringify(tr ? { ...args, torchrun: tr } : args, null, 2)}\n`,
      },
      { path: UNSLOTH_SCRIPT, content: tr ? perRankScript(script) : script },
      { path: 'requirements.txt', content: unslothRequirements(x.gpu, vllm) },
      { path: 'launch.sh', content: launchFile(tr, rl?.t.cls) },
    ],
    notes,
  };
}

/** launch.sh: python on one GPU, torchrun on several. */
function launchFile(tr: TorchrunBlock | null, cls: string | undefined): string {
  if (!tr) return cls ? launchSh(cls) : LAUNCH_SH;
  const what = cls ? `Unsloth ${cls} (TRL)` : 'Unsloth SFT';
  return torchrunLaunchSh(tr, what, UNSLOTH_SCRIPT, UNSLOTH_ARGS_FILE);
}

/** The script with each torchrun rank loading onto its own GPU (before from_pretrained). */
const perRankScript = (script: string): string =>
  script.replace(
    /^model, tokenizer = Fast\w+Model\.from_pretrained\(\*\*load\)$/m,
    (at) => `${RANK_DEVICE_PY}${at}`,
  );

/**
 * lora_alpha = r, as Unsloth's notebooks write it (unslothai/notebooks@bdda2efc nb/Llama3.1_(8B)-Alpaca.ipynb,
 * nb/Llama3.2_(1B_and_3B)-Conversational.ipynb, nb/Qwen3_(14B).ipynb, nb/Gemma3_(4B).ipynb, nb/Zephyr_(7B)-DPO.ipynb,
 * nb/Llama3_(8B)-ORPO.ipynb, nb/Llama3.1_(8B)-GRPO.ipynb: r 8-64, lora_alpha the same), not the 2r of the other
 * launchers (launch/common.ts loraAlpha).
 */
const unslothLoraAlpha = (r: number): number => r;

/** The launch README's note naming where unslothLoraAlpha and sftConfig's scheduler and weight decay come from. */
const UNSLOTH_RECIPE_NOTE =
  "lora_alpha = r, lr_scheduler_type linear (cosine for GRPO), weight_decay 0.001 (0.0 for preference objectives): Unsloth's notebooks (unslothai/notebooks@bdda2efc nb/Llama3.1_(8B)-Alpaca.ipynb, nb/Llama3.1_(8B)-GRPO.ipynb, nb/Zephyr_(7B)-DPO.ipynb)";

/** A checkpoint with a vision tower (its config has a vision_config). */
const hasTower = (arch: LaunchPlan['arch']): boolean =>
  arch.groups.some((g) => g.name === 'vision');
const isVision = (x: LaunchInput): boolean => hasTower(x.arch);

/**
 * get_peft_model kwargs for a VLM wrapper without a module-name table, as Unsloth's vision notebooks write them
 * (unslothai/notebooks@03b0cdad nb/Qwen2_VL_(7B)-Vision.ipynb: the four finetune_* switches, r, lora_alpha,
 * lora_dropout 0, bias "none", random_state 3407, no target_modules). FastVisionModel.get_peft_model (unsloth
 * 2026.10.9 models/vision.py) then builds the target regex with unsloth_zoo 2026.10.9 peft_utils.get_peft_regex:
 * every nn.Linear whose leaf name recurs (or sits in a numbered stack) under an attention / MLP module of the
 * language model, and of the tower when finetune_vision_layers, which is what the plan counts for 'all-linear'
 * (LoraReach 'with-images' / 'block-leaf'; scripts/check-launch-libs/unsloth_vlm_regex.py checks it).
 */
function wrapperPeft(x: LaunchInput, gc: boolean | 'unsloth'): Record<string, unknown> {
  const o = x.options;
  return {
    r: o.loraRank,
    lora_alpha: unslothLoraAlpha(o.loraRank),
    lora_dropout: 0, // rule unsloth-lora-dropout-zero
    bias: 'none',
    // FastVisionModel.get_peft_model defaults it to True: the tower is adapted only when images are trained.
    finetune_vision_layers: (o.images ?? 0) > 0,
    finetune_language_layers: true,
    finetune_attention_modules: true,
    finetune_mlp_modules: true,
    use_gradient_checkpointing: gc,
    random_state: 3407,
  };
}

/** What the written switches adapt beyond the plan's own targets (the planner widens them to 'all-linear' first). */
function wrapperNotes(x: LaunchInput): string[] {
  const base = `no module-name table for model_type '${x.arch.modelType}': FastVisionModel.get_peft_model picks the linears from the finetune_* switches (unsloth_zoo get_peft_regex), every attention and MLP linear of the language model${(x.options.images ?? 0) > 0 ? ' and the vision tower' : ''}`;
  return x.options.loraAllLinear ? [base] : [`${base}, more than the plan's targets`];
}

/**
 * The loader class: FastVisionModel for a multimodal checkpoint, as Unsloth's vision notebooks load one
 * (unslothai/notebooks nb/Qwen2_VL_(7B)-Vision.ipynb, nb/Gemma3_(4B)-Vision.ipynb: FastVisionModel.from_pretrained
 * and get_peft_model). At unsloth 2026.10.9 FastVisionModel is FastModel (models/loader.py), which
 * FastLanguageModel.from_pretrained also hands such a checkpoint to, so the model loaded is the same.
 */
const withLoaderClass = (script: string, vision: boolean): string =>
  vision ? script.replaceAll('FastLanguageModel', 'FastVisionModel') : script;

/** What the plan asks that Unsloth does its own way (the launch README's notes). */
function planNotes(o: EstimateOptions): string[] {
  const notes: string[] = [];
  if (o.weights === 'nf4' && !o.doubleQuant)
    notes.push(
      'Unsloth 4-bit loading always double-quantizes (llama.py#L2622): memory is slightly below the plan',
    );
  if (!o.chunkedLoss)
    notes.push(
      'Unsloth computes the loss in chunks from hidden states (unsloth_fused_ce_loss, llama.py#L1465-L1500) unless UNSLOTH_RETURN_LOGITS=1: logits memory is at most the plan',
    );
  if (o.attention !== 'sdpa')
    notes.push(
      'Unsloth picks its own attention kernel (xformers / flash-attn / SDPA): the attention switch is not written',
    );
  return notes;
}

/**
 * embed_tokens / lm_head trained fully beside the adapters (their targets or --modules-to-save): Unsloth's
 * continued-pretraining notebooks step them through UnslothTrainer at an embedding_learning_rate "at least 2x or
 * 10x smaller than learning_rate" (unslothai/notebooks bdda2efc nb/Mistral_v0.3_(7B)-CPT.ipynb: 5e-5 and 1e-5);
 * UnslothTrainer gives that rate to the modules_to_save parameters (unsloth/trainer.py _create_unsloth_optimizer
 * at 015bdef0). The tenfold end of the notebook's range, below the plan's rate.
 */
const EMBEDDING_LR_DIVISOR = 10;
const EMBEDDING_LR_NOTE =
  "embed_tokens / lm_head step at embedding_learning_rate, a tenth of learning_rate, through UnslothTrainer as Unsloth's continued-pretraining notebooks do (nb/Mistral_v0.3_(7B)-CPT.ipynb: at least 2x or 10x smaller)";

/** The `unsloth_trainer` block (UnslothTrainingArguments' embedding_learning_rate), or none. */
function embeddingTrainer(
  o: EstimateOptions,
  sft: Record<string, unknown>,
): { unsloth_trainer?: { embedding_learning_rate: number } } {
  const embeddings =
    o.method !== 'full' &&
    (o.modulesToSave !== undefined || o.loraTargets.some((t) => t === 'embed' || t === 'lm_head'));
  if (!embeddings) return {};
  const lr = Number(((sft.learning_rate as number) / EMBEDDING_LR_DIVISOR).toPrecision(6));
  return { unsloth_trainer: { embedding_learning_rate: lr } };
}

/**
 * ORPO with adapters: 5e-5, what Unsloth's ORPO notebook runs (unslothai/notebooks@bdda2efc nb/Llama3_(8B)-ORPO.ipynb
 * sets no learning_rate, and Unsloth's UnslothORPOConfig defaults it to 5e-05: unsloth/models/rl.py `replacements`
 * over TRL's config signature, unslothai/unsloth@015bdef0). Full: Unsloth ships no full ORPO notebook; TRL's.
 */
const UNSLOTH_ORPO = engineOrpoRates(
  5e-5,
  "Unsloth's ORPO notebook (nb/Llama3_(8B)-ORPO.ipynb, UnslothORPOConfig's default)",
);

/** The SFTConfig block (the DPO / GRPO blocks start from it: objective.ts). */
function sftConfig(
  x: LaunchInput,
  optim: string,
  gc: boolean | 'unsloth',
): Record<string, unknown> {
  const o = x.options;
  // SFTConfig (TRL 0.24.0 sft_config.py) over TrainingArguments (transformers v5 training_args.py).
  return {
    output_dir: 'outputs',
    per_device_train_batch_size: o.batch,
    gradient_accumulation_steps: x.gradAccum,
    // GRPO: Unsloth's GRPO notebooks' 5e-6 (unslothai/notebooks bdda2efc nb/Llama3.1_(8B)-GRPO.ipynb,
    // nb/Qwen2.5_(3B)-GRPO.ipynb, nb/Gemma3_(1B)-GRPO.ipynb); ORPO: UNSLOTH_ORPO; DPO, KTO:
    // preferenceLearningRate (its DPO notebook's 5e-6 for adapters); the SFT rate otherwise.
    learning_rate:
      o.objective === 'grpo'
        ? 5e-6
        : (UNSLOTH_ORPO.learningRate(o) ?? preferenceLearningRate(o) ?? learningRate(o)),
    // Unsloth's notebooks (unslothai/notebooks@bdda2efc): the SFT and preference ones linear (nb/Llama3.1_(8B)-Alpaca,
    // nb/Zephyr_(7B)-DPO, nb/Llama3_(8B)-ORPO), the GRPO ones cosine (nb/Llama3.1_(8B)-GRPO, nb/Qwen2.5_(3B)-GRPO).
    lr_scheduler_type: o.objective === 'grpo' ? 'cosine' : 'linear',
    // warmup_steps 5: Unsloth Studio's default (studio/backend/core/training/trainer.py#L673); v5 has no warmup_ratio.
    warmup_steps: 5,
    // The SFT and GRPO notebooks' 0.001 (same notebooks); the DPO notebook's 0.0, TrainingArguments' default, which
    // the ORPO notebook keeps.
    weight_decay: ['sft', 'grpo'].includes(o.objective ?? 'sft') ? 0.001 : 0.0,
    max_grad_norm: MAX_GRAD_NORM,
    num_train_epochs: 1,
    optim,
    bf16: floatCompute(o.compute) === 'bf16',
    fp16: o.compute === 'fp16',
    gradient_checkpointing: gc !== false, // rule trl-sft-gc-default
    max_length: o.seq, // TRL 0.24.0 SFTConfig.max_length (sft_config.py#L182); max_seq_length is gone
    packing: false, // sft_config.py#L190
    padding_free: false, // rule unsloth-auto-padding-free (sft_config.py#L204)
    logging_steps: 10,
    save_strategy: 'epoch',
    report_to: 'none',
    seed: 3407,
  };
}

/**
 * fast_inference's vLLM: 0.19.1, the version Unsloth's own GRPO CI leg installs (unslothai/unsloth
 * .github/scripts/kaggle_t4_ci/legs.py#L299 at 015bdef), not TRL 0.24.0's vllm==0.10.2 extra: 0.10.2 pins
 * torch 2.8.0 and predates vLLM's transformers v5 support (0.19.1: vllm-project/vllm#40146), against the transformers
 * 5.5.0 pinned here. TRL 0.24.0 only warns on another vLLM (trl/import_utils.py#L89-L96), and Unsloth's
 * shared-weights rollout calls the engine itself.
 */
export const UNSLOTH_VLLM_PIN = '0.19.1';
// vLLM's torch pin by release: 0.17.0 .. 0.19.1 → torch==2.10.0 (legs.py#L271-L276 at 015bdef); under zoo's <2.13.0.
export const UNSLOTH_VLLM_TORCH = '2.10.0';

// vllm 0.19.1's wheel requires transformers !=5.5.0 (Requires-Dist: transformers!=5.0.*,...,!=5.5.0,>=4.56.0):
// with it, the 5.5 line's last patch release, inside unsloth 2026.10.9's transformers<=5.17.0.
export const UNSLOTH_VLLM_TRANSFORMERS = '5.5.4';

/**
 * On an AMD GPU: unsloth 2026.10.9's own Requires-Dist names xformers and triton from PyPI (CUDA builds) on Linux
 * x86_64; Unsloth's AMD guide installs the ROCm torch first and unsloth / unsloth_zoo with --no-deps
 * (https://unsloth.ai/docs/get-started/install/amd/amd-hackathon; bitsandbytes, pinned here, carries ROCm builds).
 */
const UNSLOTH_AMD_NOTE = [
  "# AMD GPU (ROCm): unsloth's own dependencies name PyPI's CUDA xformers and triton; as Unsloth's AMD guide does,",
  '# install the rest first and unsloth / unsloth_zoo without dependencies: grep -v "^unsloth" requirements.txt > rest.txt',
  `#   && pip install -r rest.txt && pip install --no-deps unsloth==${UNSLOTH_PINS.unsloth} unsloth_zoo==${UNSLOTH_PINS.unsloth_zoo}`,
];

/** requirements.txt; with fast_inference vLLM joins, with the torch and transformers that vLLM accepts. */
function unslothRequirements(gpu: LaunchInput['gpu'], vllm: boolean): string {
  const withVllm: Partial<Record<string, string>> = {
    torch: UNSLOTH_VLLM_TORCH,
    transformers: UNSLOTH_VLLM_TRANSFORMERS,
  };
  const pins = Object.entries(UNSLOTH_PINS).map(
    ([k, v]) => `${k}==${vllm ? (withVllm[k] ?? v) : v}`,
  );
  const head = [
    '# Versions the generated files were written for (generated by vramplan)',
    ...(needsRocmTorch(gpu) ? UNSLOTH_AMD_NOTE : []),
  ].join('\n');
  if (!vllm) return `${head}\n${withRocmTorch(gpu, pins).join('\n')}\n`;
  const why = `# fast_inference: vllm ${UNSLOTH_VLLM_PIN} (Unsloth's GRPO CI pin) with the torch ${UNSLOTH_VLLM_TORCH} it pins; TRL ${UNSLOTH_PINS.trl} warns that it prefers vllm 0.10.2 (which needs transformers 4.x)`;
  const rocm = needsRocmTorch(gpu) ? vllmRocmLines(UNSLOTH_VLLM_PIN) : [];
  return `${[head, why, ...rocm, ...withRocmTorch(gpu, [...pins, `vllm==${UNSLOTH_VLLM_PIN}`])].join('\n')}\n`;
}

const launchSh = (cls: string): string =>
  LAUNCH_SH.replace('# Unsloth SFT on one GPU', `# Unsloth ${cls} (TRL) on one GPU`);

/** train_unsloth.py for DPO / GRPO: the SFT script's loading, then TRL's trainer (objective.ts). */
function objectiveScript(t: UnslothTrainer): string {
  const head = TRAIN_UNSLOTH_PY.slice(0, TRAIN_UNSLOTH_PY.indexOf('# Replace with your data.'))
    .replace('SFT with Unsloth', `${t.cls} (TRL) with Unsloth`)
    .replace('from trl import SFTConfig, SFTTrainer', `from trl import ${t.config}, ${t.cls}`);
  return `${head}${unslothObjectivePy(t)}${ATTACH_PROBE_PY}trainer.train()
trainer.save_model()
`;
}

// One process on one GPU: Unsloth places the model on the visible device (device_map "sequential").
const LAUNCH_SH = `#!/usr/bin/env bash
# Unsloth SFT on one GPU (generated by vramplan). Install first: pip install -r requirements.txt
set -euo pipefail
cd "$(dirname "$0")"
export CUDA_VISIBLE_DEVICES="\${CUDA_VISIBLE_DEVICES:-0}"
python ${UNSLOTH_SCRIPT} ${UNSLOTH_ARGS_FILE}
`;

/**
 * A minimal runnable Unsloth SFT script that reads unsloth-args.json. unsloth is imported before trl,
 * transformers and peft (rule unsloth-import-first); the dataset line is the one to replace.
 */
const TRAIN_UNSLOTH_PY = `"""SFT with Unsloth on the plan in README.md (generated by vramplan). Run it through launch.sh."""
import json
import sys

# Unsloth patches trl, transformers and peft when imported: keep this import first.
from unsloth import FastLanguageModel

import torch
from datasets import load_dataset
from trl import SFTConfig, SFTTrainer

with open(sys.argv[1] if len(sys.argv) > 1 else "${UNSLOTH_ARGS_FILE}") as f:
    args = json.load(f)

load = dict(args["from_pretrained"])
load["dtype"] = getattr(torch, load["dtype"])
model, tokenizer = FastLanguageModel.from_pretrained(**load)
if args["get_peft_model"]:
    model = FastLanguageModel.get_peft_model(model, **args["get_peft_model"])

# Replace with your data. A base model's tokenizer has no chat template: train it on plain text.
if getattr(tokenizer, "chat_template", None):
    dataset = load_dataset("trl-lib/Capybara", split="train")  # conversations ("messages")
else:
    dataset = load_dataset("stanfordnlp/imdb", split="train")  # plain text ("text")

trainer = SFTTrainer(
    model=model,
    args=SFTConfig(**args["sft_config"]),
    train_dataset=dataset,
    processing_class=tokenizer,
)
${ATTACH_PROBE_PY}trainer.train()
trainer.save_model()
`;

/** train_unsloth.py with UnslothTrainer, whose UnslothTrainingArguments (an SFTConfig) adds embedding_learning_rate. */
const UNSLOTH_TRAINER_PY = TRAIN_UNSLOTH_PY.replace(
  'trainer = SFTTrainer(\n    model=model,\n    args=SFTConfig(**args["sft_config"]),',
  `# embed_tokens / lm_head step at embedding_learning_rate (Unsloth's continued-pretraining notebooks).
from unsloth import UnslothTrainer, UnslothTrainingArguments

trainer = UnslothTrainer(
    model=model,
    args=UnslothTrainingArguments(**args["unsloth_trainer"], **args["sft_config"]),`,
);
