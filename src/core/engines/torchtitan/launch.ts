/**
 * torchtitan launcher: a Python config function (the recipe torchtitan.train loads with --module/--config),
 * launch.sh with the torchrun line, and pinned requirements. torchtitan 0.3.0 reads no TOML: the TOML job
 * config was removed by "[BC Breaking] Config System Refactor: TOML to Python Dataclass Registry" (pytorch/torchtitan#2386,
 * commit 9810191bb, 2026-02-23, after v0.2.2). Sources read at pytorch/torchtitan main b5bcd76c66d0 (2026-08-21,
 * the newest commit before 0.3.0 in the mirror; assets/version.txt there still says 0.2.2): cited as TT below.
 * The 0.3.0 wheel on PyPI differs from that commit in TrainingConfig's batch fields (local_batch_size,
 * global_batch_size, seq_len; no token counts): those follow the wheel, whose ConfigManager builds the recipe.
 */
import {
  learningRate,
  MASTER_PORT,
  MAX_GRAD_NORM,
  nodesOf,
  planSummary,
} from '../../launch/common.js';
import { SLURM_FILE, slurmScript } from '../../launch/slurm.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { withRocmTorch } from '../../launch/rocm-torch.js';
import { dpShard } from './rules.js';
import { floatCompute } from '../../../schema/estimate.js';
import { TORCHTITAN_FILE } from './launch-folder.js';
import { TORCHTITAN_TORCH } from './profile.js';

/** The recipe file (./launch-folder.ts) and the function in it (ConfigManager._load_config imports the module by name: TT torchtitan/config/manager.py). */
export { TORCHTITAN_FILE };
export const TORCHTITAN_MODULE = 'torchtitan_vramplan';
export const TORCHTITAN_FUNCTION = 'vramplan';

/** Versions the files are written for: torchtitan 0.3.0 (2026-09) and the torch/torchao current with it. */
export const TORCHTITAN_PINS = {
  torchtitan: '0.3.0',
  torch: TORCHTITAN_TORCH,
  torchao: '0.18.0',
} as const;

/**
 * torchtitan's asset downloader (scripts/download_hf_assets.py: --repo_id, --local_dir, --assets; it imports only
 * tqdm and huggingface_hub), not in the wheel: fetched from the commit the files were read at
 * (pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a scripts/download_hf_assets.py).
 */
const ASSETS_SCRIPT_URL =
  'https://raw.githubusercontent.com/pytorch/torchtitan/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/scripts/download_hf_assets.py';

/**
 * Training steps written when the job's token count is unknown (flags, not a scenario): the recipe's own
 * (TT torchtitan/models/llama3/config_registry.py llama3_8b: steps=1000).
 */
const STEPS = 1000;

/** Optimizer steps that cover the planned tokens: ceil(tokens / tokens per step), else the recipe's 1000. */
export function titanSteps(tokens: number | undefined, tokensPerStep: number): number {
  return tokens === undefined ? STEPS : Math.max(1, Math.ceil(tokens / tokensPerStep));
}
/** LR warmup steps (the torchtune launcher's num_warmup_steps); TT lr_scheduler.py default is 200. */
const WARMUP_STEPS = 100;

interface TitanModel {
  /** torchtitan.models.<family> (TT torchtitan/models/__init__.py _supported_models). */
  family: 'llama3' | 'qwen3';
  /** Key of <family>_configs (TT torchtitan/models/llama3/__init__.py L360, qwen3/__init__.py L599). */
  flavor: string;
  /** A config_registry function of the family whose Trainer.Config the recipe starts from. */
  base: string;
}

// Catalog id → registry flavor; each flavor's dim/layers/heads/kv heads/vocab match the catalog config
// (TT torchtitan/models/llama3/__init__.py _1b.._405b; torchtitan/models/qwen3/__init__.py _0_6b.._30b_a3b).
// The llama3 flavors use Llama 3.1 rope scaling (scaling="llama"), so Llama 3.0 ids are not mapped.
const L3 = { family: 'llama3', base: 'llama3_8b' } as const; // TT llama3/config_registry.py L194
const Q3 = { family: 'qwen3', base: 'qwen3_14b' } as const; // TT qwen3/config_registry.py L270
const TITAN_MODELS: Record<string, TitanModel> = {
  'llama-3.2-1b': { ...L3, flavor: '1B' },
  'llama-3.2-3b': { ...L3, flavor: '3B' },
  'llama-3.1-8b': { ...L3, flavor: '8B' },
  'llama-3.1-70b': { ...L3, flavor: '70B' },
  'llama-3.3-70b-instruct': { ...L3, flavor: '70B' },
  'llama-3.1-405b': { ...L3, flavor: '405B' },
  'qwen3-0.6b': { ...Q3, flavor: '0.6B' },
  'qwen3-1.7b': { ...Q3, flavor: '1.7B' },
  'qwen3-4b': { ...Q3, flavor: '4B' },
  'qwen3-8b': { ...Q3, flavor: '8B' },
  'qwen3-14b': { ...Q3, flavor: '14B' },
  'qwen3-32b': { ...Q3, flavor: '32B' },
  'qwen3-30b-a3b': { ...Q3, flavor: '30B-A3B' },
};

const REGISTRY_TEXT =
  'torchtitan 0.3.0 trains llama3 (1B, 3B, 8B, 70B, 405B: Llama 3.1/3.2/3.3), qwen3 (0.6B, 1.7B, 4B, 8B, 14B, 32B, 30B-A3B, 235B-A22B), deepseek_v3 (16B, 236B, 671B), gpt_oss (20b, 120b), kimi_k2_7, qwen3_5, flux; vramplan maps the Llama 3.1+ and Qwen3 catalog models';

/** Why torchtitan 0.3.0 cannot run `x` as planned, or null. Cheap: the planner asks per layout. */
export function torchtitanBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.method !== 'full')
    return 'torchtitan trains full fine-tunes only (no LoRA/QLoRA/inference)';
  if (!TITAN_MODELS[x.arch.id]) return `no torchtitan flavor for '${x.arch.id}': ${REGISTRY_TEXT}`;
  // training.dtype float32 + mixed_precision_param (TT configs.py L87-L94): fp32 sharded parameters.
  if (o.weights !== 'fp32')
    return `torchtitan keeps fp32 parameters with bf16 mixed precision (plan has ${o.weights} weights)`;
  if (o.zero !== 3) return 'torchtitan shards with FSDP2 (ZeRO-3 equivalent) only';
  // enable_cpu_offload offloads parameters, gradients and optimizer states together (TT configs.py L70).
  if (o.offload === 'optimizer')
    return 'torchtitan offloads parameters, gradients and optimizer states together (training.enable_cpu_offload); no optimizer-only offload';
  // ActivationCheckpointingConfig: selective | full | memory-budget | none (TT activation_checkpoint.py L332-L337).
  if (o.checkpointing === 'offload')
    return 'torchtitan has no activation offloading (activation_checkpoint: selective, full, memory-budget or none)';
  // Attention backends flex, flex_flash, varlen (TT models/common/config_utils.py L83-L100).
  if (o.attention === 'eager')
    return 'torchtitan has no eager attention (attn_backend: flex, flex_flash or varlen)';
  if (o.optimizer !== 'adamw')
    return `torchtitan's recipe optimizer is AdamW (plan has ${o.optimizer})`;
  if (o.optimizerInBackward) return 'torchtitan has no optimizer-in-backward';
  if (o.sparsity > 0) return 'sparse weights have no torchtitan switch';
  return null;
}

/** A Python literal: str (JSON escapes are valid Python escapes), int/float, bool, None. */
export function pyLiteral(v: string | number | boolean | null): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  return JSON.stringify(v);
}

/** The converter class for `--compute fp8` / `mxfp8`, or null. */
const float8Converter = (o: LaunchInput['options']): string | null =>
  o.compute === 'fp8'
    ? 'Float8LinearConverter'
    : o.compute === 'mxfp8'
      ? 'MXFP8LinearConverter'
      : null;

/**
 * Which linears the converter swaps: those of the transformer blocks, not the output head, as the time model counts
 * (time/float8.ts). Float8LinearConverter.Config.filter_fqns (skip list) defaults to [] and MXFP8LinearConverter's
 * fqns (keep list) to [] = every Linear (TT 0.3.0 components/quantization/float8.py, mx.py; both match by substring),
 * so the head is named: filter_fqns=["lm_head"] as the llama3_405b recipe writes it (TT 0.3.0 llama3/config_registry.py),
 * and fqns=["layers"] (the blocks' FQNs, "layers.<i>.attention.wq", TT models/common/decoder.py) for MXFP8.
 */
const float8Scope = (o: LaunchInput['options']): string =>
  o.compute === 'mxfp8' ? 'fqns=["layers"], ' : 'filter_fqns=["lm_head"], ';

/** The activation_checkpoint value (TT activation_checkpoint.py: SelectiveAC.Config, FullAC.Config, None). */
const AC: Record<'none' | 'selective' | 'full', string> = {
  none: 'None',
  selective: 'SelectiveAC.Config()',
  full: 'FullAC.Config()',
};

// Long on purpose: one config function, assignment by assignment in the order of Trainer.Config's fields.
export function emitTorchtitan(x: LaunchInput): EngineOutput {
  const engine = 'torchtitan';
  const o = x.options;
  const m = TITAN_MODELS[x.arch.id];
  const why = torchtitanBlocker(x);
  if (why || !m) return { engine, ok: false, reason: why ?? 'unsupported' };
  const notes: string[] = [];
  const dp = dpShard(o);
  const set: [string, string][] = [];
  const put = (key: string, v: string | number | boolean | null) => set.push([key, pyLiteral(v)]);
  // model_registry(flavor, attn_backend=...) (TT llama3/__init__.py L369-L372).
  // FP8 training: a converter on the model config (TT components/quantization/float8.py Float8LinearConverter,
  // mx.py MXFP8LinearConverter; passed as model_registry(converters=...) as TT llama3/config_registry.py
  // llama3_debugmodel_float8 does).
  const converter = float8Converter(o);
  const converters = converter
    ? `, converters=[${converter}.Config(${float8Scope(o)}model_compile_enabled=${pyLiteral(o.compile)})]`
    : '';
  set.push([
    'model_spec',
    `model_registry(${pyLiteral(m.flavor)}, attn_backend="flex"${converters})`,
  ]);
  const assetsName = x.modelRef.split('/').pop() ?? x.arch.id;
  const assets = `./assets/hf/${assetsName}`;
  // HF_ASSETS: the folder's assets/hf/<repo> as an absolute path (see the module constant below).
  set.push(['hf_assets_path', 'HF_ASSETS']); // Trainer.Config.hf_assets_path (TT trainer.py L79)
  set.push(['optimizer', `default_adamw(lr=${pyLiteral(learningRate(o))})`]); // TT optimizer.py L378
  put('lr_scheduler.warmup_steps', WARMUP_STEPS); // TT lr_scheduler.py L52
  // TrainingConfig of the torchtitan 0.3.0 wheel (config/configs.py L36-L53, read in the installed release:
  // the token-count fields of main b5bcd76 are not in it): local_batch_size per DP rank per accumulation step
  // (split into pipeline micro-batches of parallelism.pipeline_parallel_microbatch_size under PP),
  // global_batch_size across DP ranks and accumulation; accumulation = global / (local x dp) (trainer.py L415-L430).
  const perStep = o.batch * o.seq * x.gradAccum * dp;
  put('training.local_batch_size', o.pp > 1 ? o.batch * x.gradAccum : o.batch);
  put('training.global_batch_size', o.batch * x.gradAccum * dp);
  put('training.seq_len', o.seq);
  // The c4 loader streams without end: steps alone stop the run (TT configs.py L67 Training.steps).
  put('training.steps', titanSteps(x.trainTokens, perStep));
  put('training.max_norm', MAX_GRAD_NORM); // TT configs.py L59
  put('training.enable_cpu_offload', o.offload === 'optimizer+params'); // TT configs.py L65
  put('training.dtype', 'float32'); // TT configs.py L82
  put(
    'training.mixed_precision_param',
    floatCompute(o.compute) === 'bf16' ? 'bfloat16' : 'float32',
  ); // TT configs.py L89
  if (o.pp > 1) put('training.disable_cuda_graphs', true); // rule torchtitan-pp-cuda-graphs
  put('parallelism.data_parallel_replicate_degree', 1); // TT configs.py L117
  put('parallelism.data_parallel_shard_degree', dp); // TT configs.py L128
  put('parallelism.tensor_parallel_degree', o.tp); // TT configs.py L161
  if (o.tp > 1) put('parallelism.enable_sequence_parallel', o.sequenceParallel); // TT configs.py L164
  put('parallelism.pipeline_parallel_degree', o.pp); // TT configs.py L175
  // With PP the plan's micro-batches go through the pipeline schedule (1F1B) instead of accumulation:
  // local_batch_size holds them all, in micro-batches of the plan's batch (0.3.0 configs.py L226).
  if (o.pp > 1) put('parallelism.pipeline_parallel_microbatch_size', o.batch);
  put('parallelism.context_parallel_degree', o.cp); // TT configs.py L234
  // Routed experts whole over ep of the dp_shard x cp x tp ranks (TT configs.py L282; v0.2.2 job_config.py L454).
  if (o.ep !== undefined && o.ep > 1) put('parallelism.expert_parallel_degree', o.ep);
  set.push(['activation_checkpoint', AC[o.checkpointing as 'none' | 'selective' | 'full']]);
  put('compile.enable', o.compile); // TT configs.py L290
  put('checkpoint.enable', true); // TT components/checkpointer/base.py L278
  // Fine-tuning starts from the Hugging Face safetensors in hf_assets_path (TT base.py L287-L293); the
  // checkpointer rejects a path that is neither absolute nor remote (TT base.py L349-L358).
  set.push(['checkpoint.initial_load_path', 'HF_ASSETS']);
  put('checkpoint.initial_load_in_hf', true);
  put('checkpoint.initial_load_model_only', true);
  put('checkpoint.last_save_in_hf', true); // TT base.py L302
  // The family's recipes wrap CrossEntropyLoss in ChunkedLossWrapper; unwrap it unless the plan chunks the loss
  // (plain CrossEntropyLoss.Config as in TT llama3/config_registry.py L184 llama3_debugmodel_ce_loss).
  if (!o.chunkedLoss) set.push(['loss', 'config.loss.loss_fn']);
  if (o.tp > 1)
    notes.push(
      'loss parallel is always on under TP in torchtitan 0.3.0 (rule torchtitan-tp-loss-parallel)',
    );
  notes.push(
    `hf_assets_path is ${assets} beside ${TORCHTITAN_FILE} (made absolute there; "How to run" downloads the tokenizer and safetensors into it)`,
    `dataloader, metrics and profiler come from torchtitan's ${m.base} recipe (c4 dataset): replace config.dataloader for your data`,
  );
  if (x.trainTokens === undefined)
    notes.push(
      `training.steps is torchtitan's recipe default (${STEPS}): no token count was planned; set it to your tokens / ${perStep} per step`,
    );
  if (o.attention !== 'eager')
    notes.push(
      'attention is FlexAttention (attn_backend "flex"): torchtitan 0.3.0 language models have no sdpa backend',
    );

  const { nodes, perNode } = nodesOf(x);
  const entry = `-m torchtitan.train --module ${TORCHTITAN_MODULE} --config ${TORCHTITAN_FUNCTION}`;
  // torchrun flags as run_train.sh writes them (TT run_train.sh); c10d rendezvous on MASTER_ADDR across nodes.
  const torchrun =
    nodes > 1
      ? `torchrun --nnodes ${nodes} --nproc_per_node ${perNode} --node_rank $NODE_RANK --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:${MASTER_PORT} ${entry}`
      : `torchrun --nproc_per_node=\${NGPU} --rdzv_backend c10d --rdzv_endpoint="localhost:0" --local-ranks-filter 0 --role rank --tee 3 ${entry}`;
  const py = [
    `# torchtitan recipe (generated by vramplan): ${planSummary(x)}`,
    `# Run: ./launch.sh  (${torchrun})`,
    `# torchtitan ${TORCHTITAN_PINS.torchtitan} reads Python config functions (--module/--config), not TOML.`,
    'from pathlib import Path',
    '',
    'from torchtitan.components.optimizer import default_adamw',
    'from torchtitan.distributed.activation_checkpoint import FullAC, SelectiveAC',
    ...(converter ? [`from torchtitan.components.quantization import ${converter}`] : []),
    `from torchtitan.models.${m.family} import model_registry`,
    `from torchtitan.models.${m.family}.config_registry import ${m.base}`,
    'from torchtitan.trainer import Trainer',
    '',
    `HF_MODEL = ${pyLiteral(x.modelRef)}`,
    `NGPU = ${o.gpus}`,
    `# Absolute, as the checkpointer requires of initial_load_path: assets/hf/<repo> beside this file.`,
    `HF_ASSETS = str(Path(__file__).resolve().parent / "assets" / "hf" / ${pyLiteral(assetsName)})`,
    '',
    '',
    `def ${TORCHTITAN_FUNCTION}() -> Trainer.Config:`,
    `    config = ${m.base}()`,
    ...set.map(([k, v]) => `    config.${k} = ${v}`),
    '    return config',
    '',
  ].join('\n');
  const sh = [
    '#!/usr/bin/env bash',
    `# torchtitan launch (generated by vramplan): ${o.gpus} GPUs, ${nodes} node(s) x ${perNode}`,
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
    `# ${TORCHTITAN_FILE} is imported by module name from this folder.`,
    'export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"',
    `export NGPU=\${NGPU:-${perNode}}`,
    'export PYTORCH_ALLOC_CONF="expandable_segments:True"',
    torchrun,
    '',
  ].join('\n');
  // torchtitan's own dependencies (datasets, tokenizers, safetensors, grain, tyro...) come with it
  // (TT pyproject.toml); torch and torchao are not among them.
  const pins = withRocmTorch(
    x.gpu,
    Object.entries(TORCHTITAN_PINS).map(([k, v]) => `${k}==${v}`),
  );
  return {
    engine,
    ok: true,
    files: [
      { path: TORCHTITAN_FILE, content: py },
      { path: 'launch.sh', content: sh },
      ...(nodes > 1 ? [{ path: SLURM_FILE, content: slurmScript(x, `bash ./launch.sh`) }] : []),
      {
        path: 'requirements.txt',
        content: `# Versions the generated files were written for (generated by vramplan)\n${pins.join('\n')}\n`,
      },
    ],
    notes,
    prepare: [
      {
        command: `curl -fsSLO ${ASSETS_SCRIPT_URL} && python download_hf_assets.py --repo_id ${x.modelRef} --local_dir ./assets/hf --assets tokenizer safetensors`,
        what: `the tokenizer and safetensors hf_assets_path points at (${assets}; torchtitan environment; HF_TOKEN set for a gated repository)`,
      },
    ],
  };
}
