/** torchtune recipe config YAML, for the models torchtune ships builders for. */
import { Document } from 'yaml';
import type { EstimateOptions } from '../../../schema/estimate.js';
import { dataParallel, isAdapter, MASTER_PORT, nodesOf } from '../../launch/common.js';
import { SLURM_FILE, slurmScript } from '../../launch/slurm.js';
import { writtenLoraDropout, loraAlpha } from '../../launch/common.js';
import { withRocmTorch } from '../../launch/rocm-torch.js';
import { TORCHTUNE_TORCH } from './profile.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import {
  builderOf,
  TORCHTUNE_VERSION,
  TUNE_COMPONENTS,
  TUNE_CPU_OFFLOAD,
  TUNE_OPTIM,
  tuneOptimizer,
  type TuneModel,
} from './components.js';

import { tuneModelOf } from './builders.js';
import { isTuneDpo, tuneDpoBlocker, tuneDpoConfig, tuneDpoRecipe } from './dpo.js';
import { TUNE_CHECKPOINTS } from './checkpoints.js';
import { floatCompute } from '../../../schema/estimate.js';
import { TORCHTUNE_FILE } from './launch-folder.js';

function optimizerComponent(o: EstimateOptions): Record<string, unknown> | undefined {
  if (o.offload === 'optimizer' && dataParallel(o) === 1) return TUNE_CPU_OFFLOAD;
  return tuneOptimizer(o, dataParallel(o));
}

/**
 * Why torchtune cannot run the plan, or null: the launcher's own limits (its forbid rules, rules.ts, are
 * checked first by launch/index.ts launchBlocker and buildLaunch, at the plan's accumulation).
 */
function blocker(x: LaunchPlan, m: TuneModel | undefined): string | null {
  const o = x.options;
  if (o.method === 'inference') return 'the plan is inference: torchtune recipes are for training';
  if (!m) return `torchtune ships no model builder for '${x.arch.id}'`;
  if (!TUNE_CHECKPOINTS[x.arch.id])
    return `torchtune ${TORCHTUNE_VERSION} ships no recipe config naming the checkpoint files of '${x.arch.id}' (its checkpointer loads exactly the files listed)`;
  if (o.method === 'qlora' && o.weights !== 'nf4')
    return `torchtune QLoRA quantizes to NF4 only (plan has ${o.weights})`;
  if (o.method === 'lora' && o.weights !== 'bf16' && o.weights !== 'fp32')
    return `torchtune LoRA needs bf16/fp32 base weights (plan has ${o.weights}; use qlora for NF4)`;
  if (o.tp > 1 || o.pp > 1)
    return 'tensor/pipeline parallel plans are out of scope for these torchtune recipes';
  if (dataParallel(o) === 1 && o.offload === 'optimizer+params')
    return "single-device torchtune recipes do not offload parameters (fsdp_cpu_offload is the distributed recipes')";
  if (dataParallel(o) === 1 && o.offload === 'optimizer' && o.optimizerInBackward)
    return "optimizer_in_bwd steps one optimizer per parameter inside backward; CPUOffloadOptimizer's host step is modelled after backward only";
  if (dataParallel(o) > 1 && o.offload === 'optimizer')
    return 'torchtune FSDP offloads parameters, gradients and optimizer together (fsdp_cpu_offload); optimizer-only offload is not available';
  if (!TUNE_OPTIM[o.optimizer])
    return `optimizer ${o.optimizer} has no torchtune component mapping`;
  if (o.loraTargets.includes('embed'))
    return 'torchtune LoRA builders cannot adapt the token embedding';
  if (m.tiedOutput && isAdapter(o) && o.loraTargets.includes('lm_head'))
    return `torchtune's ${m.module} LoRA builders cannot adapt the output projection (tied to the embedding)`;
  if (o.sparsity > 0) return 'sparse weights have no torchtune switch';
  return tuneDpoBlocker(x);
}

/** Why torchtune cannot run `x` (its rules, then the launcher's limits), or null; accum is taken as 1. */
export const torchtuneBlocker = (x: LaunchPlan): string | null => blocker(x, tuneModelOf(x.arch));

const recipeOf = (o: EstimateOptions): string =>
  isTuneDpo(o)
    ? tuneDpoRecipe(dataParallel(o) > 1, o.method === 'full')
    : `${isAdapter(o) ? 'lora' : 'full'}_finetune_${dataParallel(o) > 1 ? 'distributed' : 'single_device'}`;

/** The model block: the builder and, for LoRA / QLoRA, its adapter keys. */
function modelBlock(o: EstimateOptions, m: TuneModel, notes: string[]): Record<string, unknown> {
  const model: Record<string, unknown> = { _component_: builderOf(m, o.method) };
  if (isAdapter(o)) {
    const attn: Record<string, string> = {
      q: 'q_proj',
      k: 'k_proj',
      v: 'v_proj',
      o: 'output_proj',
    };
    model.lora_attn_modules = o.loraTargets.filter((t) => t in attn).map((t) => attn[t]);
    const mlp = o.loraTargets.filter((t) => t === 'gate' || t === 'up' || t === 'down');
    model.apply_lora_to_mlp = mlp.length > 0;
    if (mlp.length > 0 && mlp.length < 3)
      notes.push('apply_lora_to_mlp adapts all three MLP projections (the plan named fewer)');
    if (!m.tiedOutput) model.apply_lora_to_output = o.loraTargets.includes('lm_head');
    model.lora_rank = o.loraRank;
    model.lora_alpha = loraAlpha(o.loraRank);
    model.lora_dropout = writtenLoraDropout(o);
  }
  return model;
}

/** The distributed recipes' FSDP keys (and what a ZeRO stage becomes on torchtune). */
function shardingKeys(config: Record<string, unknown>, o: EstimateOptions, notes: string[]): void {
  const distributed = dataParallel(o) > 1;
  if (distributed) {
    config.fsdp_cpu_offload = o.offload === 'optimizer+params';
    // torchtune shards every distributed run (FSDP2); reshard after forward = ZeRO-3, else ZeRO-2.
    config.fsdp_reshard_after_forward = o.zero === 3;
    if (o.zero === 0 || o.zero === 1)
      notes.push(
        'torchtune distributed recipes always shard with FSDP: uses less memory than the planned ZeRO stage',
      );
  } else if (o.zero > 0)
    notes.push('single-device recipe: ZeRO sharding does not apply on one GPU');
}

/** What the recipe does its own way for the plan's choices (the launch README's notes). */
function planNotes(o: EstimateOptions): string[] {
  const notes: string[] = [];
  if (o.checkpointing === 'selective')
    notes.push('selective recompute maps to full activation checkpointing (less memory, slower)');
  if (o.attention !== 'sdpa')
    notes.push(
      'torchtune attention is SDPA (flash kernels where available); the attention switch does not apply',
    );
  if (o.method === 'qlora' && !o.doubleQuant)
    notes.push('torchao NF4 always quantizes the scales (double quantization on)');
  return notes;
}

/** The `tune run` command line; tune run passes torchrun's flags through (--nnodes, --node_rank, c10d). */
function tuneRun(x: LaunchInput): { nodes: number; launch: string } {
  const o = x.options;
  // Full DPO has no single-device recipe: full_dpo_distributed "can be run on a single node (1 to 8 GPUs)"
  // (recipes/full_dpo_distributed.py:33-34 at v0.6.1), one GPU as one process of torchrun.
  const distributed = dataParallel(o) > 1 || (isTuneDpo(o) && !isAdapter(o));
  const { nodes, perNode } = nodesOf(x);
  const launch =
    nodes > 1
      ? `tune run --nnodes ${nodes} --nproc_per_node ${perNode} --node_rank $NODE_RANK --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:${MASTER_PORT} ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`
      : distributed
        ? `tune run --nproc_per_node ${o.gpus} ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`
        : `tune run ${recipeOf(o)} --config ./${TORCHTUNE_FILE}`;
  return { nodes, launch };
}

// Recipe configs: https://pytorch.org/torchtune/stable/recipes/recipes_overview.html
// Long on purpose: it writes one torchtune recipe config, key by key in the file's own order.
export function emitTorchtune(x: LaunchInput): EngineOutput {
  const engine = 'torchtune';
  const o = x.options;
  const m = tuneModelOf(x.arch);
  const why = blocker(x, m);
  const ck = TUNE_CHECKPOINTS[x.arch.id];
  if (why || !m || !ck) return { engine, ok: false, reason: why ?? 'unsupported' };
  const notes: string[] = [];
  const model = modelBlock(o, m, notes);
  const dir = `./models/${x.arch.id}`;
  // Tokenizer and weights where torchtune's own recipe for the model reads them (checkpoints.ts).
  const weightsDir = ck.dir ? `${dir}/${ck.dir}` : dir;
  const distributed = dataParallel(o) > 1;
  const schedule = tuneSchedule(o);
  const config: Record<string, unknown> = {
    output_dir: './outputs',
    model,
    tokenizer: { _component_: m.tokenizer, path: `${dir}/${ck.tokenizer}`, max_seq_len: o.seq },
    checkpointer: {
      _component_: ck.meta ? TUNE_COMPONENTS.metaCheckpointer : TUNE_COMPONENTS.checkpointer,
      checkpoint_dir: weightsDir,
      checkpoint_files: ck.files,
      recipe_checkpoint: null,
      output_dir: '${output_dir}',
      model_type: m.modelType,
    },
    resume_from_checkpoint: false,
    dataset: { _component_: TUNE_COMPONENTS.dataset, packed: false },
    seed: null,
    shuffle: true,
    batch_size: o.batch,
    epochs: 1,
    max_steps_per_epoch: null,
    gradient_accumulation_steps: x.gradAccum,
    // Read with cfg.get("clip_grad_norm", None); must stay null under optimizer_in_bwd (recipe raises otherwise).
    clip_grad_norm: null,
    optimizer: { ...optimizerComponent(o), lr: schedule.lr },
    lr_scheduler: {
      _component_: TUNE_COMPONENTS.lrScheduler,
      num_warmup_steps: schedule.warmup,
    },
    // CEWithChunkedOutputLoss never materialises full fp32 logits (torchtune memory optimizations guide).
    loss: {
      _component_: o.chunkedLoss ? TUNE_COMPONENTS.chunkedLoss : TUNE_COMPONENTS.loss,
    },
    // On Apple GPUs the recipes take device mps: torchtune v0.6.1 utils/_device.py get_device builds torch.device(device)
    // and checks it with torch.empty(0, device=device) (https://github.com/pytorch/torchtune/blob/v0.6.1/torchtune/utils/_device.py).
    device: x.gpu.vendor === 'apple' ? 'mps' : 'cuda',
    dtype: floatCompute(o.compute),
    enable_activation_checkpointing: o.checkpointing !== 'none',
    enable_activation_offloading: o.checkpointing === 'offload',
    // The four SFT recipes compile the model per layer and the loss when cfg.compile (recipes/*_finetune_*.py at
    // v0.6.1: `self._compile = cfg.get("compile", False)`, training.compile_model / compile_loss): the plan's --compile.
    compile: o.compile,
    log_every_n_steps: 1,
    log_peak_memory_stats: true,
    metric_logger: {
      _component_: TUNE_COMPONENTS.metricLogger,
      log_dir: '${output_dir}/logs',
    },
  };
  // Both full recipes read optimizer_in_bwd at 0.6.1 (full_finetune_distributed.py:181 too); LoRA recipes do not.
  if (!isAdapter(o)) config.optimizer_in_bwd = o.optimizerInBackward;
  shardingKeys(config, o, notes);
  notes.push(...planNotes(o));
  notes.push(
    `tokenizer and checkpoint files are where torchtune's own ${TORCHTUNE_VERSION} recipe for ${x.arch.id} reads them, under ${dir} ("How to run" downloads them)`,
  );
  // tune download <repo> --output-dir --ignore-patterns (torchtune v0.6.1 torchtune/_cli/download.py; no default
  // pattern there); the pattern is the recipe's own (checkpoints.ts).
  const download = `tune download ${x.modelRef} --output-dir ${dir}${ck.ignore ? ` --ignore-patterns "${ck.ignore}"` : ''}`;
  // YAML 1.1 mode quotes no/on/yes, which PyYAML (Accelerate, axolotl, torchtune readers) would read as booleans.
  // DPO: the lora_dpo_* / full_dpo_distributed recipe's keys (dpo.ts).
  if (isTuneDpo(o) && !isAdapter(o) && o.zero < 3 && dataParallel(o) > 1)
    notes.push(
      'full_dpo_distributed shards the reference copy with FSDP as the policy (_setup_reference_model): its memory is below the plan, which holds a whole copy below ZeRO-3',
    );
  const tuned = isTuneDpo(o) ? tuneDpoConfig(config, distributed, !isAdapter(o)) : config;
  const doc = new Document(tuned, {
    version: '1.1',
  });
  const { nodes, launch } = tuneRun(x);
  doc.commentBefore = ` torchtune config (generated by vramplan). Run: ${launch}\n ${schedule.note}`;
  const bnbOptim = String(optimizerComponent(o)?._component_ ?? '').startsWith('bitsandbytes');
  return {
    engine,
    ok: true,
    files: [
      { path: TORCHTUNE_FILE, content: doc.toString() },
      ...(nodes > 1 ? [{ path: SLURM_FILE, content: slurmScript(x, launch) }] : []),
      {
        path: 'requirements.txt',
        content: torchtuneRequirements(x.gpu, bnbOptim),
      },
    ],
    notes,
    command: launch,
    prepare: [
      {
        command: download,
        what: `the tokenizer and checkpoint files ${TORCHTUNE_FILE} names (torchtune environment; HF_TOKEN set for a gated repository)`,
      },
    ],
  };
}

export const torchtuneRecipe = recipeOf;

const TUNE_RECIPES = 'recipes/configs/llama3_1 of torchtune 0.6.1';
/**
 * Learning rate and warmup from torchtune 0.6.1's own Llama-3.1-8B recipes (recipes/configs/llama3_1/ in its
 * wheel): LoRA/QLoRA SFT (8B_lora.yaml, 8B_lora_single_device.yaml, 8B_qlora_single_device.yaml) lr 3e-4 with 100
 * warmup steps; LoRA DPO (8B_lora_dpo.yaml, 8B_lora_dpo_single_device.yaml) 5e-4, 100; full DPO (8B_full_dpo.yaml)
 * 2e-5, 20; full SFT (8B_full.yaml) 2e-5 with no scheduler, so its 100 warmup steps are the other recipes'.
 */
export function tuneSchedule(o: LaunchInput['options']): {
  lr: number;
  warmup: number;
  note: string;
} {
  const dpo = isTuneDpo(o);
  if (isAdapter(o)) {
    const [lr, recipe] = dpo ? [5e-4, '8B_lora_dpo.yaml'] : [3e-4, '8B_lora.yaml'];
    return {
      lr,
      warmup: 100,
      note: `lr ${lr}, 100 warmup steps: torchtune's own ${recipe} (${TUNE_RECIPES})`,
    };
  }
  if (dpo)
    return {
      lr: 2e-5,
      warmup: 20,
      note: `lr 2e-5, 20 warmup steps: torchtune's own 8B_full_dpo.yaml (${TUNE_RECIPES})`,
    };
  return {
    lr: 2e-5,
    warmup: 100,
    note: `lr 2e-5: torchtune's own 8B_full.yaml (${TUNE_RECIPES}), which has no scheduler; 100 warmup steps as its LoRA recipes`,
  };
}

/**
 * torchtune's own environment (a virtualenv of its own: these pins conflict with vLLM's and transformers').
 * torchtune 0.6.1 (2025-04-07, tag v0.6.1, commit a6290a5b) was the last release; its CI installed the
 * stable torch and torchao of that day (.github/workflows/gpu_test.yaml: pip install torch torchvision
 * torchao), i.e. torch 2.6.0 and torchao 0.10.0 (tag v0.10.0, 2025-04-02), and it pins torchdata==0.11.0
 * (pyproject.toml). Today's torchao breaks it: torchao 0.16.0 removed int4_weight_only (pytorch/ao
 * commit 10ad5bd5, pytorch/ao#3308), which torchtune/training/quantization.py imports when torchtune.training loads,
 * and torchao 0.18.0 moved torchao.dtypes.nf4tensor (commit 60b42ac6, pytorch/ao#4256) that LoRA/QLoRA import.
 */
export const TORCHTUNE_PINS = [
  `torch==${TORCHTUNE_TORCH}`,
  'torchao==0.10.0',
  'torchdata==0.11.0',
  'torchtune==0.6.1',
];
// bitsandbytes 0.50.1 (tag 0.50.1, 2026-08-13) requires torch>=2.4,<3 (pyproject.toml), so it runs on torch 2.6.
export const TORCHTUNE_BNB_PIN = 'bitsandbytes==0.50.1';

export function torchtuneRequirements(gpu: LaunchInput['gpu'], bnb: boolean): string {
  const head = [
    `# torchtune environment: install in its own virtualenv (pip install -r requirements.txt).`,
    `# Pins checked 2026-11-26 against torchtune v${TORCHTUNE_VERSION} (last release) and the torch/torchao it ran on;`,
    '# torchao >= 0.16 breaks torchtune 0.6.1 at import (generated by vramplan).',
  ];
  const pins = withRocmTorch(gpu, [...TORCHTUNE_PINS, ...(bnb ? [TORCHTUNE_BNB_PIN] : [])]);
  return `${[...head, ...pins].join('\n')}\n`;
}
