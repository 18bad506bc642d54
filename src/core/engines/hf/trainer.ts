/**
 * Hugging Face Trainer / TRL SFTConfig arguments, PEFT LoraConfig and bitsandbytes BitsAndBytesConfig,
 * written as one JSON args file that the generated train.py reads.
 */
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import {
  writtenLoraDropout,
  loraAlpha,
  MAX_GRAD_NORM,
  TORCH_DTYPE,
  is4bit,
  isAdapter,
  loadDtype,
  preferenceLrNote,
} from '../../launch/common.js';
import { DEEPSPEED_FILE } from './deepspeed.js';
import { HF_TORCH } from './profile.js';
import { LIGER_PIN } from '../../kernels/liger.js';
import {
  deepspeedOwnsOptimizer,
  distributionOf,
  flattens4bit,
  quantStorageNote,
  shardsWeights,
  axolotlShardedLoad,
  type Distribution,
} from './distribution.js';
import {
  expertTargetParameters,
  loraTargetModules,
  savedModuleNames,
} from '../../launch/modules.js';
import {
  FLASH_ATTN_WHEEL,
  PEFT_ZERO3_REENTRANT,
  BNB_FUSED_EXPERTS,
  changes,
  ruleBlocker,
  ruleNotes,
} from './rules.js';
import type { EngineOutput, LaunchInput } from '../../launch/types.js';
import { ATTACH_PROBE_PY } from '../../launch/probe-py.js';
import { spotResume, type SpotResume } from '../../launch/spot-resume.js';
import { needsRocmTorch, withRocmTorch } from '../../launch/rocm-torch.js';
import { vllmRocmLines } from '../vllm/rocm-wheel.js';
import {
  TRL_VLLM_PIN,
  TRL_VLLM_TORCH,
  hfScriptImports,
  objectiveTrainPy,
  trlGrpoLrNote,
  trlLearningRate,
  trlOrpoLrNote,
  trlObjectiveBlocker,
  trlObjectiveConfig,
} from './trl-objective.js';
import { floatCompute } from '../../../schema/estimate.js';
import { HF_ARGS_FILE } from './launch-folder.js';
import { dequantizesMxfp4, MXFP4_DEQUANTIZE_PY } from './mxfp4-load.js';

export const TRAIN_SCRIPT = 'train.py';

// TrainingArguments.optim values: https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments.optim
const TRAINER_OPTIM: Partial<Record<Optimizer, string>> = {
  adamw: 'adamw_torch_fused',
  'adamw-8bit': 'adamw_bnb_8bit',
  'paged-adamw': 'paged_adamw_32bit',
  'paged-adamw-8bit': 'paged_adamw_8bit',
  lion: 'lion_32bit',
  adafactor: 'adafactor',
  sgd: 'sgd',
};

/** Trainer `optim` for the plan, or why it has none (SGD momentum and Adam-mini are not settable by name). */
export function trainerOptim(o: EstimateOptions): { optim: string } | { reason: string } {
  const name = TRAINER_OPTIM[o.optimizer];
  if (name) return { optim: name };
  if (o.optimizer === 'sgd-momentum' && deepspeedOwnsOptimizer(o)) return { optim: 'sgd' };
  return {
    reason:
      o.optimizer === 'sgd-momentum'
        ? "the Trainer's optim='sgd' builds torch SGD without momentum (optim_args are ignored for SGD)"
        : `optimizer ${o.optimizer} has no TrainingArguments.optim name`,
  };
}

// attn_implementation values: https://huggingface.co/docs/transformers/attention_interface ; flash comes
// from the kernels hub (rule flash-attn-wheel), the id TRL v1.9.0 docs/source/kernels_hub.md gives.
export const KERNELS_FLASH_ATTN = 'kernels-community/flash-attn2';
const ATTN: Record<EstimateOptions['attention'], string> = {
  eager: 'eager',
  sdpa: 'sdpa',
  flash: KERNELS_FLASH_ATTN,
};

// BitsAndBytesConfig: https://huggingface.co/docs/transformers/main_classes/quantization#transformers.BitsAndBytesConfig
export function bnbConfig(x: LaunchInput): Record<string, unknown> | null {
  const o = x.options;
  if (o.weights === 'int8') return { load_in_8bit: true };
  if (!is4bit(o)) return null;
  const c: Record<string, unknown> = {
    load_in_4bit: true,
    bnb_4bit_quant_type: o.weights,
    bnb_4bit_use_double_quant: o.doubleQuant,
    bnb_4bit_compute_dtype: TORCH_DTYPE[floatCompute(o.compute)],
  };
  if (flattens4bit(distributionOf(x), o))
    c.bnb_4bit_quant_storage = TORCH_DTYPE[floatCompute(o.compute)];
  return c;
}

// LoraConfig: https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig
export function loraConfig(
  x: LaunchInput,
): { config: Record<string, unknown>; notes: string[] } | null {
  const o = x.options;
  if (!isAdapter(o)) return null;
  const m = loraTargetModules(x.arch, o, true);
  const config: Record<string, unknown> = {
    r: o.loraRank,
    lora_alpha: loraAlpha(o.loraRank),
    // lora.ParamWrapper raises on lora_dropout != 0 (peft v0.20.0 tuners/lora/layer.py, a5526d27).
    lora_dropout: m.targetParameters.length > 0 ? 0 : writtenLoraDropout(o),
    target_modules: m.targetModules,
    bias: 'none',
    task_type: x.arch.kind === 'encoder-decoder' ? 'SEQ_2_SEQ_LM' : 'CAUSAL_LM',
  };
  // Fused 3-D expert weights (transformers 5.x) are reached through target_parameters only (launch/modules.ts).
  if (m.targetParameters.length > 0) config.target_parameters = m.targetParameters;
  // LoraConfig modules_to_save: full trained copies beside the adapters (--modules-to-save).
  const saved = savedModuleNames(x.arch, o);
  if (saved && saved.length > 0) config.modules_to_save = saved;
  // GPT-2 stores its projections as Conv1D (weight transposed): PEFT needs fan_in_fan_out=True.
  if (x.arch.modelType === 'gpt2') config.fan_in_fan_out = true;
  return { config, notes: m.notes };
}

// SFTConfig (extends TrainingArguments): https://huggingface.co/docs/trl/sft_trainer#trl.SFTConfig
export const HF_ENGINE = 'Hugging Face Trainer / TRL + PEFT + bitsandbytes';

/**
 * LoRA on fused experts under DeepSpeed ZeRO-3: PEFT 0.20.0's ParamWrapper reads the targeted parameter's
 * shape, which ZeRO-3 has already partitioned to an empty one (fixed after the release: huggingface/peft@5d602fdb, huggingface/peft#3576).
 */
export function expertZero3Blocker(
  x: Pick<LaunchInput, 'arch' | 'options'>,
  d: Pick<Distribution, 'kind'>,
): string | null {
  if (!isAdapter(x.options) || d.kind !== 'deepspeed' || x.options.zero !== 3) return null;
  if (expertTargetParameters(x.arch, x.options).params.length === 0) return null;
  return `PEFT ${HF_PINS.peft} cannot build LoRA on fused expert weights under DeepSpeed ZeRO-3 (ParamWrapper reads the partitioned, empty shape; fixed after the release, huggingface/peft#3576): use FSDP or ZeRO-2`;
}

/** The change rules whose notes the Trainer's launch writes. */
const TRAINER_NOTE_RULES = [FLASH_ATTN_WHEEL, PEFT_ZERO3_REENTRANT, BNB_FUSED_EXPERTS];

// The plan's load is axolotl's layer-by-layer one (distribution.ts axolotlShardedLoad); the Trainer's is whole.
const WHOLE_4BIT_LOAD =
  'train.py loads the whole 4-bit model onto every GPU before FSDP shards it (transformers 5.14.1: the 4-bit quantizer sets device_map {"": current device}); the plan counts axolotl\'s layer-by-layer load: run axolotl.yaml (qlora_sharded_model_loading)';

const wholeLoadBlocker = (x: LaunchInput, d: Distribution): string | null =>
  axolotlShardedLoad(x, d) ? WHOLE_4BIT_LOAD : null;

/** The notes on the optimizer states, the adapters, the objective's learning rate and the 4-bit storage dtype. */
function trainingNotes(
  x: LaunchInput,
  d: Distribution,
  lora: ReturnType<typeof loraConfig>,
): string[] {
  const o = x.options;
  const out: string[] = [];
  if (o.optimizerStates === 'bf16' && o.weights !== 'bf16')
    out.push(
      'torch optimizers keep states in the parameter dtype: bf16 states need bf16 parameters',
    );
  if (lora) out.push(...lora.notes);
  if (o.objective === 'grpo') out.push(trlGrpoLrNote(o));
  const preferenceNote = preferenceLrNote(o) ?? trlOrpoLrNote(o);
  if (preferenceNote) out.push(preferenceNote);
  if (flattens4bit(d, o)) out.push(quantStorageNote(o, TORCH_DTYPE[floatCompute(o.compute)]));
  return out;
}

export function emitHfArgs(x: LaunchInput): EngineOutput {
  const engine = HF_ENGINE;
  const o = x.options;
  const d = distributionOf(x);
  if (d.blocker) return { engine, ok: false, reason: d.blocker };
  const forbidden = ruleBlocker(x, x.gradAccum);
  if (forbidden) return { engine, ok: false, reason: forbidden };
  const opt = trainerOptim(o);
  if ('reason' in opt) return { engine, ok: false, reason: opt.reason };
  const expertBlock = expertZero3Blocker(x, d) ?? trlObjectiveBlocker(x) ?? wholeLoadBlocker(x, d);
  if (expertBlock) return { engine, ok: false, reason: expertBlock };
  const notes = [...d.notes, ...ruleNotes(x, TRAINER_NOTE_RULES)];
  const sft: Record<string, unknown> = {
    output_dir: 'outputs',
    per_device_train_batch_size: o.batch,
    gradient_accumulation_steps: x.gradAccum,
    learning_rate: trlLearningRate(o),
    lr_scheduler_type: 'cosine',
    // transformers 5.x: warmup_ratio removed, a float in [0, 1) is a ratio (training_args.py at 00349ae8).
    warmup_steps: 0.03,
    weight_decay: 0.0,
    max_grad_norm: MAX_GRAD_NORM,
    num_train_epochs: 1,
    optim: opt.optim,
    bf16: floatCompute(o.compute) === 'bf16',
    fp16: o.compute === 'fp16',
    gradient_checkpointing: o.checkpointing !== 'none',
    max_length: o.seq,
    packing: false,
    logging_steps: 10,
    save_strategy: 'epoch',
    report_to: 'none',
  };
  // Non-reentrant checkpointing, except where TRL forces reentrant (rule peft-zero3-reentrant).
  if (o.checkpointing !== 'none')
    sft.gradient_checkpointing_kwargs = { use_reentrant: changes(PEFT_ZERO3_REENTRANT, x) };
  if (o.checkpointing === 'selective')
    notes.push(
      'the Trainer has no selective recompute: full gradient checkpointing is used (less memory than planned, but slower)',
    );
  // TRL activation offloading moves saved activations to pinned CPU memory (SFTConfig.activation_offloading).
  if (o.checkpointing === 'offload') sft.activation_offloading = true;
  // Liger (TrainingArguments.use_liger_kernel): --liger loads every kernel Liger has for the model type;
  // --chunked-loss alone only its fused linear cross-entropy (liger_kernel_config: the apply function's kwargs).
  if (o.liger || o.chunkedLoss) sft.use_liger_kernel = true;
  if (o.chunkedLoss && !o.liger) sft.liger_kernel_config = LIGER_LOSS_ONLY;
  if (d.kind === 'deepspeed') sft.deepspeed = DEEPSPEED_FILE;
  const lora = loraConfig(x);
  notes.push(...trainingNotes(x, d, lora));
  const bnb = bnbConfig(x);
  const args = {
    model_name_or_path: x.modelRef,
    model_init_kwargs: { dtype: loadDtype(o), attn_implementation: ATTN[o.attention] },
    bnb_config: bnb,
    // bitsandbytes weights: each rank loads the whole model onto its GPU, device_map {"": local rank}; under FSDP /
    // ZeRO-3 none is passed and the 4-bit quantizer sets the same (hf/memory.ts BNB_4BIT_LOADS_WHOLE).
    device_map_per_rank: bnb !== null && !shardsWeights(d, o),
    lora_config: lora?.config ?? null,
  };
  // Preference / RL: TRL's trainer for the objective, its config block and train.py (trl-objective.ts).
  const rl = trlObjectiveConfig(x, sft);
  const resume = rl ? null : spotResume(x);
  if (resume) Object.assign(sft, spotSaveKeys(resume));
  const trainer = rl
    ? { ...args, trainer: rl.trainer.trainer, [rl.trainer.block]: rl.config, ...rl.top }
    : { ...args, trainer: 'sft', sft_config: sft };
  const loading = modelLoading(dequantizesMxfp4(x));
  const script = rl
    ? objectiveTrainPy(rl.trainer, lora !== null, loading)
    : trainPy(lora !== null, resume !== null, loading);
  return {
    engine,
    ok: true,
    files: [
      { path: HF_ARGS_FILE, content: `${JSON.stringify(trainer, null, 2)}\n` },
      { path: TRAIN_SCRIPT, content: script },
      { path: REQUIREMENTS_FILE, content: requirementsOf(x, d.kind === 'deepspeed') },
    ],
    notes,
    ...(resume ? { resumes: true } : {}),
  };
}

export const REQUIREMENTS_FILE = 'requirements.txt';

// apply_liger_kernel_to_* keyword arguments (liger_kernel/transformers/monkey_patch.py; keys a model's function
// lacks are dropped by _apply_liger_kernel_to_instance): the fused linear cross-entropy alone.
const LIGER_LOSS_ONLY = {
  fused_linear_cross_entropy: true,
  cross_entropy: false,
  rms_norm: false,
  swiglu: false,
  geglu: false,
  rope: false,
};

/**
 * Exact pins: for each, the release whose source the written keys were read at, or a newer one that
 * scripts/check-launch-libs constructs every written config with (docs/launch-libs-2026-12-06.md).
 */
export const HF_PINS = {
  // The range axolotl requires (v0.18.0 pyproject.toml torch>=2.11.0,<=2.12.1; v0.19.0 <=2.13.0); the kernels-hub
  // FlashAttention builds stop at torch 2.12; no keys read.
  torch: HF_TORCH,
  // warmup_steps float ratio, dtype=, use_liger_kernel: training_args.py at 00349ae8; axolotl v0.18.0 pins 5.14.1.
  // Held: the trainer behaviour in hf/rules.ts and memory.ts was read at this tag.
  transformers: '5.14.1',
  // SFTConfig max_length, packing, activation_offloading, model_init_kwargs; SFTTrainer processing_class,
  // peft_config: trl v1.9.0 (35def3ee) trl/trainer/sft_config.py, sft_trainer.py. Held: the refusals in
  // trl-objective.ts were read at this tag (1.16.0 changes the DPO/GRPO lm_head and Liger checks).
  trl: '1.9.0',
  // LoraConfig r, lora_alpha, lora_dropout, target_modules, bias, fan_in_fan_out: peft v0.20.0 (a5526d27);
  // 0.21.2 (PyPI's newest) constructs every written lora_config; ParamWrapper still refuses lora_dropout != 0.
  peft: '0.21.2',
  // FSDP1/FSDP2 config keys: accelerate v1.14.0 (beb0672a) commands/config/cluster.py, utils/constants.py;
  // 1.15.0 (PyPI's newest) loads every written accelerate.yaml and its launcher takes every fsdp_config key.
  accelerate: '1.15.0',
  // trl v1.9.0 needs datasets>=4.7.0; axolotl v0.18.0 and v0.19.0 pin 4.8.4 (5.x: train.py's loading not run here).
  datasets: '4.8.4',
  // BitsAndBytesConfig storage and optimizers: bitsandbytes 0.50.1 (37d2a938); 0.50.2 (PyPI's newest, axolotl
  // v0.19.0's pin) builds every written bnb_config.
  bitsandbytes: '0.50.2',
  // zero_optimization keys, launcher --no_local_rank: DeepSpeed v0.19.5 (cf443004); 0.19.8 (PyPI's newest)
  // builds every written deepspeed.json (DeepSpeedZeroConfig) and keeps --no_local_rank (launcher/launch.py).
  deepspeed: '0.19.8',
  // trl v1.9.0's liger extra needs >=0.8.0; the current release (its memory path: kernels/liger.ts).
  'liger-kernel': LIGER_PIN, // liger_kernel/transformers/monkey_patch.py needs transformers >= 4.52
  // Hub kernels loader for attn_implementation kernels-community/...: axolotl v0.18.0 pins 0.15.2 (the hub
  // build lookup of 0.16+ is not exercised without a GPU, so not taken).
  kernels: '0.15.2',
} as const;

const REQUIREMENTS_HEAD = '# Versions the generated files were written for (generated by vramplan)';

function requirementsOf(x: LaunchInput, deepspeed: boolean): string {
  const o = x.options;
  const names: (keyof typeof HF_PINS)[] = [
    'torch',
    'transformers',
    'trl',
    'accelerate',
    'datasets',
  ];
  if (o.method === 'lora' || o.method === 'qlora') names.push('peft');
  const bnbOptim = ['adamw-8bit', 'paged-adamw', 'paged-adamw-8bit', 'lion'].includes(o.optimizer);
  if (o.weights === 'int8' || is4bit(o) || bnbOptim) names.push('bitsandbytes');
  if (deepspeed) names.push('deepspeed');
  if (o.chunkedLoss || o.liger) names.push('liger-kernel');
  if (o.attention === 'flash') names.push('kernels'); // attn_implementation kernels-community/flash-attn2
  const lines = names.map((n) => `${n}==${HF_PINS[n]}`);
  if (o.rollout === 'vllm-colocate' || o.rollout === 'vllm-server') {
    // GRPO's rollout engine in the same environment (TRL v1.9.0 vllm extra: vllm>=0.17.0,<=0.25.1); vllm's
    // wheel pins the torch it was built with (TRL_VLLM_TORCH), written in torch's place.
    lines.splice(0, 1, `torch==${TRL_VLLM_TORCH}`, `vllm==${TRL_VLLM_PIN}`);
    const rollout = [
      `# GRPO rollout: vllm ${TRL_VLLM_PIN} (the newest in TRL ${HF_PINS.trl}'s vllm extra) pins torch ${TRL_VLLM_TORCH}, inside axolotl's torch>=2.11.0,<=2.13.0; transformers ${HF_PINS.transformers} kept (vLLM takes v5 since 0.19.1)`,
      ...(needsRocmTorch(x.gpu) ? vllmRocmLines(TRL_VLLM_PIN) : []),
    ];
    return `${REQUIREMENTS_HEAD}\n${rollout.join('\n')}\n${withRocmTorch(x.gpu, lines).join('\n')}\n`;
  }
  return `${REQUIREMENTS_HEAD}\n${withRocmTorch(x.gpu, lines).join('\n')}\n`;
}

/** train.py's model loading from hf-args.json (shared by the SFT and the preference / RL scripts). */
const modelLoading = (
  dequantizeMxfp4: boolean,
): string => `model_kwargs = dict(args["model_init_kwargs"])
model_kwargs["dtype"] = getattr(torch, model_kwargs["dtype"])
${dequantizeMxfp4 ? MXFP4_DEQUANTIZE_PY : ''}if args["bnb_config"]:
    bnb = dict(args["bnb_config"])
    for key in ("bnb_4bit_compute_dtype", "bnb_4bit_quant_storage"):
        if key in bnb:
            bnb[key] = getattr(torch, bnb[key])
    model_kwargs["quantization_config"] = BitsAndBytesConfig(**bnb)
if args["device_map_per_rank"]:
    model_kwargs["device_map"] = {"": int(os.environ.get("LOCAL_RANK", "0"))}

tokenizer = AutoTokenizer.from_pretrained(args["model_name_or_path"])
# A multimodal checkpoint loads through its image-text-to-text class, vision tower included: AutoModelForCausalLM
# maps mllama and llama4 to their text-only classes and the other wrappers to nothing.
config = AutoConfig.from_pretrained(args["model_name_or_path"])
auto = AutoModelForImageTextToText if hasattr(config, "vision_config") else AutoModelForCausalLM
model = auto.from_pretrained(args["model_name_or_path"], **model_kwargs)
`;

/**
 * A minimal runnable TRL script that reads hf-args.json. The training arguments are built before the model
 * is loaded, so DeepSpeed ZeRO-3 partitions it while loading (zero.Init) and FSDP loads it on one rank
 * (cpu_ram_efficient_loading); the dataset follows the tokenizer (conversations when it has a chat
 * template, plain text otherwise); the dataset line is the one to replace.
 */
const trainPy = (
  adapter: boolean,
  resume: boolean,
  loading: string,
): string => `"""SFT with TRL on the plan in README.md (generated by vramplan). Run it through launch.sh."""
${hfScriptImports(adapter)}from trl import SFTConfig, SFTTrainer

with open(sys.argv[1] if len(sys.argv) > 1 else "${HF_ARGS_FILE}") as f:
    args = json.load(f)

# First the training arguments: they set up DeepSpeed / FSDP before the weights are loaded.
training_args = SFTConfig(**args["sft_config"])

${loading}# Replace with your data. A base model's tokenizer has no chat template: train it on plain text.
if tokenizer.chat_template:
    dataset = load_dataset("trl-lib/Capybara", split="train")  # conversations ("messages")
else:
    dataset = load_dataset("stanfordnlp/imdb", split="train")  # plain text ("text")

trainer = SFTTrainer(
    model=model,
    args=training_args,
    train_dataset=dataset,
    processing_class=tokenizer,
${adapter ? '    peft_config=LoraConfig(**args["lora_config"]),\n' : ''})
${ATTACH_PROBE_PY}${resume ? RESUME_TRAIN_PY : 'trainer.train()\n'}trainer.save_model()
`;

/**
 * A spot plan's output_dir, on the mounted bucket, with a save every saveSteps steps (TrainingArguments
 * output_dir, save_strategy "steps", save_steps: transformers 5.14.1 training_args.py, keys checked in
 * test/fixtures/launch-libs/accepted-keys.json).
 */
export const spotSaveKeys = (r: SpotResume): Record<string, unknown> => ({
  output_dir: r.dir,
  save_strategy: 'steps',
  save_steps: r.saveSteps,
});

// Resume from the newest checkpoint-<step> folder after a preemption, or start fresh (Trainer.train
// resume_from_checkpoint, transformers 5.14.1 trainer.py; get_last_checkpoint, trainer_utils.py).
const RESUME_TRAIN_PY = `from transformers.trainer_utils import get_last_checkpoint

last = get_last_checkpoint(training_args.output_dir) if os.path.isdir(training_args.output_dir) else None
trainer.train(resume_from_checkpoint=last)
`;
