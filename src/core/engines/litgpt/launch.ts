/**
 * LitGPT launcher: `litgpt.yaml` for `litgpt finetune_lora | finetune_full --config`, the download and run
 * lines, pinned versions, and LitGPT's behaviour rules. Keys and behaviour read at litgpt v0.5.13
 * (tag v0.5.13 = commit 26857050fe3ff627cd714fe92f5838f51a3d5efa, "chore: bump version to 0.5.13").
 */
import { Document } from 'yaml';
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import {
  dataParallel,
  globalBatch,
  isAdapter,
  learningRate,
  MASTER_PORT,
  nodesOf,
  planSummary,
} from '../../launch/common.js';
import { LORA_DROPOUT, loraAlpha } from '../../launch/hf.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { changesFor, forbiddenBy, type Rule, type RuleInput, ruleReason } from '../rules.js';
import { LITGPT_CONFIG_PY, litgptModel } from './models.js';

export const LITGPT_FILE = 'litgpt.yaml';
export const LITGPT_SCRIPT = 'launch.sh';
export const LITGPT_VERSION = '0.5.13';
const COMMIT = '26857050fe3ff627cd714fe92f5838f51a3d5efa';
const LITGPT = `https://github.com/Lightning-AI/litgpt/blob/${COMMIT}`;
// lightning 2.6.5 (tag commit be98784a1a03581b7051a355ae1084fd352d7cea, 2026-05-27).
const LIGHTNING =
  'https://github.com/Lightning-AI/pytorch-lightning/blob/be98784a1a03581b7051a355ae1084fd352d7cea';

/**
 * Versions the files are written for. litgpt 0.5.13 declares torch>=2.7, lightning>=2.6.1 and, in [extra]
 * (Alpaca's requests, sentencepiece tokenizers), bitsandbytes>=0.45.2,<0.50 on Linux (pyproject.toml at
 * 26857050); its GPU CI runs torch==2.8.0 (.lightning/workflows/tests.yaml TORCH_VERSION at 26857050);
 * lightning 2.6.5 is the newest release before litgpt 0.5.13 and tests torch <2.10
 * (requirements/fabric/base.txt at be98784); bitsandbytes 0.49.2 (tag f0e6ca3, 2026-02-16) is the newest
 * below litgpt's <0.50 bound.
 */
export const LITGPT_PINS = [
  `litgpt[extra]==${LITGPT_VERSION}`,
  'torch==2.8.0',
  'lightning==2.6.5',
  'bitsandbytes==0.49.2',
] as const;

const QUANTIZE: Partial<Record<EstimateOptions['weights'], string>> = {
  // finetune/lora.py L53: quantize Literal["bnb.nf4", "bnb.nf4-dq", "bnb.fp4", "bnb.fp4-dq", "bnb.int8-training"].
  nf4: 'bnb.nf4',
  fp4: 'bnb.fp4',
  int8: 'bnb.int8-training',
};
const quantized = (o: EstimateOptions): boolean => QUANTIZE[o.weights] !== undefined;

/** The `quantize:` value of the plan (double quantization = the -dq modes), or null for float weights. */
export function litgptQuantize(o: EstimateOptions): string | null {
  const q = QUANTIZE[o.weights];
  if (!q) return null;
  return o.doubleQuant && o.weights !== 'int8' ? `${q}-dq` : q;
}

/**
 * Fabric precision for the plan (lora.py L89 docstring: "bf16-true", "bf16-mixed", "32-true"; Fabric also takes
 * "16-true"/"16-mixed"): float weights in the compute dtype = "-true"; fp32 weights under 16-bit compute =
 * "-mixed" (autocast over fp32 parameters). Quantized runs take the compute dtype's "-true" (lora.py L148).
 */
export function litgptPrecision(o: EstimateOptions): string | null {
  const c = o.compute === 'bf16' ? 'bf16' : o.compute === 'fp16' ? '16' : '32';
  if (quantized(o) || o.weights === o.compute) return `${c}-true`;
  if (o.weights === 'fp32' && c !== '32') return `${c}-mixed`;
  return null;
}

/**
 * Optimizer class paths; instantiate_torch_optimizer imports `class_path` and passes `init_args`
 * (utils.py L636-668 at 26857050). With --quantize the class is replaced (rule litgpt-quantize-paged-adamw).
 */
const OPTIM: Partial<Record<Optimizer, { class_path: string; momentum?: number }>> = {
  adamw: { class_path: 'torch.optim.AdamW' },
  'adamw-8bit': { class_path: 'bitsandbytes.optim.AdamW8bit' },
  'paged-adamw': { class_path: 'bitsandbytes.optim.PagedAdamW' },
  'paged-adamw-8bit': { class_path: 'bitsandbytes.optim.PagedAdamW8bit' },
  sgd: { class_path: 'torch.optim.SGD', momentum: 0 },
  'sgd-momentum': { class_path: 'torch.optim.SGD', momentum: 0.9 },
};

const MLP = ['gate', 'up', 'down'] as const;
const hasMlp = (o: EstimateOptions) => MLP.filter((t) => o.loraTargets.includes(t)).length;
const src = (path: string, lines: string) => `${LITGPT}/${path}#${lines}`;
const V = `==${LITGPT_VERSION}`;

/** LitGPT's behaviour at v0.5.13, read in its source (each `source` a line range at commit 26857050). */
export const LITGPT_RULES: readonly Rule[] = [
  {
    id: 'litgpt-quantize-one-device',
    says: 'LitGPT quantizes (--quantize) on one GPU only: finetune_lora raises NotImplementedError when devices x num_nodes > 1',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L152-L157'),
    effect: 'forbid',
    applies: (x) => quantized(x.options) && x.options.gpus > 1,
  },
  {
    id: 'litgpt-int8-needs-fp16',
    says: "bnb.int8-training runs only with precision 16-true: Lightning's BitsandbytesPrecision raises ValueError for an int8 mode whose dtype is not float16",
    library: 'lightning',
    versions: '==2.6.5',
    source: `${LIGHTNING}/src/lightning/fabric/plugins/precision/bitsandbytes.py#L87-L88`,
    effect: 'forbid',
    applies: (x) => x.options.weights === 'int8' && x.options.compute !== 'fp16',
  },
  {
    id: 'litgpt-quantize-paged-adamw',
    says: 'With --quantize LitGPT steps bitsandbytes PagedAdamW (32-bit states) whatever optimizer the config names, and raises ValueError for a non-AdamW one: plan paged-adamw',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/utils.py', 'L619-L633'),
    effect: 'forbid',
    applies: (x) => quantized(x.options) && x.options.optimizer !== 'paged-adamw',
  },
  {
    id: 'litgpt-multi-gpu-full-shard',
    says: 'On more than one GPU LitGPT always shards parameters, gradients and optimizer states (finetune_full: FSDPStrategy FULL_SHARD; finetune_lora: FSDP2 fully_shard), with no switch: plan ZeRO-3',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L107-L116'),
    effect: 'forbid',
    applies: (x) => x.options.gpus > 1 && x.options.zero !== 3,
  },
  {
    id: 'litgpt-multi-gpu-checkpointing',
    says: 'On more than one GPU LitGPT checkpoints every transformer Block (FSDPStrategy activation_checkpointing_policy={Block}; lora.py parallelize_fn activation_checkpointing=True), with no switch: plan full checkpointing',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L522-L529'),
    effect: 'forbid',
    applies: (x) => x.options.gpus > 1 && x.options.checkpointing !== 'full',
  },
  {
    id: 'litgpt-one-gpu-no-checkpointing',
    says: "On one GPU LitGPT runs strategy='auto' with no activation checkpointing and no switch for it: plan checkpointing none",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L115-L116'),
    effect: 'forbid',
    applies: (x) => x.options.gpus === 1 && x.options.checkpointing !== 'none',
  },
  {
    id: 'litgpt-lora-mlp-together',
    says: 'LitGPT lora_mlp adapts every MLP projection (fc_1, fc_2, proj; MoE router and experts) together: plan gate, up and down all or none',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/lora.py', 'L575-L620'),
    effect: 'forbid',
    applies: (x) => isAdapter(x.options) && hasMlp(x.options) % 3 !== 0,
  },
  {
    id: 'litgpt-no-embedding-lora',
    says: 'LitGPT LoRA puts no adapter on the token embedding (transformer.wte is a plain nn.Embedding)',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/lora.py', 'L498'),
    effect: 'forbid',
    applies: (x) => isAdapter(x.options) && x.options.loraTargets.includes('embed'),
  },
  {
    id: 'litgpt-full-unchunked-head',
    says: 'finetune_full projects the whole lm_head at once (logits = model(input_ids)) and has no chunked-loss switch',
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/full.py', 'L282-L284'),
    effect: 'forbid',
    applies: (x) => x.options.method === 'full' && x.options.chunkedLoss,
  },
  {
    id: 'litgpt-quantize-true-precision',
    says: "LitGPT rejects --quantize with a mixed precision (ValueError) and defaults to bf16-mixed where bf16 runs: the launcher writes the compute dtype's -true precision",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L140-L150'),
    effect: 'change',
    applies: (x) => quantized(x.options),
  },
  {
    id: 'litgpt-no-grad-clipping',
    says: "LitGPT fine-tuning rejects train.max_norm (validate_args raises ValueError): the launcher leaves gradient clipping off, not the planner's max-norm 1.0",
    library: 'litgpt',
    versions: V,
    source: src('litgpt/finetune/lora.py', 'L563-L566'),
    effect: 'change',
    applies: (x) => x.options.method !== 'inference',
  },
];

const ruleInput = (x: LaunchPlan): RuleInput => ({
  arch: x.arch,
  options: x.options,
  dp: dataParallel(x.options),
  accum: 1, // no rule reads it
});

/** Why LitGPT 0.5.13 cannot run the plan as planned, or null. Cheap: table lookups and the rules above. */
export function litgptBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.method === 'inference')
    return 'the plan is inference: the LitGPT launcher writes fine-tunes';
  if (!litgptModel(x.arch.hfId))
    return `LitGPT ${LITGPT_VERSION} has no config for '${x.arch.hfId ?? x.arch.id}' (it runs only the models of litgpt/config.py, ${LITGPT_CONFIG_PY})`;
  if (o.tp > 1 || o.pp > 1 || o.cp > 1)
    return 'LitGPT fine-tuning is data-parallel only (no tensor, pipeline or context parallelism)';
  if (o.offload !== 'none') return 'LitGPT sets FSDP cpu_offload=False and has no offload switch';
  if (o.optimizerInBackward) return 'LitGPT has no optimizer-in-backward';
  if (o.compile) return 'LitGPT fine-tuning scripts have no torch.compile switch';
  if (o.sparsity > 0) return 'sparse weights have no LitGPT switch';
  if (o.method !== 'full' && !quantized(o) && o.weights !== 'bf16' && o.weights !== 'fp32')
    return `LitGPT quantizes with bitsandbytes nf4/fp4/int8 only (plan has ${o.weights})`;
  if (!litgptPrecision(o))
    return `no LitGPT precision holds ${o.weights} weights with ${o.compute} compute (bf16-true, bf16-mixed, 16-true, 16-mixed, 32-true)`;
  if (!OPTIM[o.optimizer]) return `optimizer ${o.optimizer} has no LitGPT class mapping`;
  const rule = forbiddenBy(LITGPT_RULES, ruleInput(x));
  return rule ? ruleReason(rule) : null;
}

/** The LitGPT subcommand that runs the plan (__main__.py PARSER_DATA finetune_lora / finetune_full). */
export const litgptCommand = (o: EstimateOptions): string =>
  isAdapter(o) ? 'finetune_lora' : 'finetune_full';

function optimizerBlock(o: EstimateOptions): Record<string, unknown> {
  const m = OPTIM[quantized(o) ? 'paged-adamw' : o.optimizer]!;
  const init: Record<string, unknown> = { lr: learningRate(o) };
  // torch.optim.AdamW's default weight decay is 0.01; LitGPT's shipped configs write 0.0 (config_hub/finetune/*/lora.yaml).
  if (m.class_path.includes('AdamW')) init.weight_decay = 0.0;
  if (m.momentum !== undefined) init.momentum = m.momentum;
  return { class_path: m.class_path, init_args: init };
}

// Long on purpose: it writes litgpt.yaml key by key in setup()'s own order (finetune/lora.py L49-79).
export function emitLitgpt(x: LaunchInput): EngineOutput {
  const engine = 'litgpt';
  const o = x.options;
  const why = litgptBlocker(x);
  const model = litgptModel(x.arch.hfId);
  if (why || !model) return { engine, ok: false, reason: why ?? 'unsupported' };
  const { nodes, perNode } = nodesOf(x);
  const adapter = isAdapter(o);
  const command = litgptCommand(o);
  const checkpointDir = `checkpoints/${model.repo}`; // download.py L83: checkpoint_dir / repo_id
  const config: Record<string, unknown> = {
    checkpoint_dir: checkpointDir,
    out_dir: `out/finetune/${o.method}-${x.arch.id}`,
    precision: litgptPrecision(o),
  };
  if (adapter) {
    const q = litgptQuantize(o);
    if (q) config.quantize = q;
  }
  config.devices = perNode; // Fabric devices: GPUs per machine
  config.num_nodes = nodes;
  if (adapter) {
    const t = (k: string) => o.loraTargets.includes(k as never);
    Object.assign(config, {
      lora_r: o.loraRank,
      lora_alpha: loraAlpha(o.loraRank),
      lora_dropout: LORA_DROPOUT,
      lora_query: t('q'),
      lora_key: t('k'),
      lora_value: t('v'),
      lora_projection: t('o'),
      lora_mlp: hasMlp(o) === 3,
      lora_head: t('lm_head'),
    });
  }
  // args.py TrainArgs; validate_args requires epochs and rejects max_norm (lora.py L563-L576).
  config.data = { class_path: 'litgpt.data.Alpaca' };
  config.train = {
    save_interval: 1000,
    log_interval: 1,
    // TrainArgs.gradient_accumulation_iters = global_batch_size // (devices * num_nodes) // micro_batch_size (args.py L56-L66).
    global_batch_size: globalBatch(x),
    micro_batch_size: o.batch,
    lr_warmup_steps: 100,
    epochs: 1,
    max_seq_length: o.seq,
  };
  // EvalArgs: validate_args requires eval.max_new_tokens (lora.py L570-L574).
  config.eval = { interval: 100, max_new_tokens: 100, max_iters: 100 };
  config.optimizer = optimizerBlock(o);
  config.logger_name = 'csv';
  config.seed = 1337;
  const doc = new Document(config, { version: '1.1' });
  doc.commentBefore = ` LitGPT ${LITGPT_VERSION} config (generated by vramplan): ${planSummary(x)}\n Run: bash ${LITGPT_SCRIPT}`;
  const notes: string[] = changesFor(LITGPT_RULES, {
    ...ruleInput(x),
    accum: x.gradAccum,
  }).map((r) => `${r.says} (rule ${r.id}: ${r.source})`);
  if (adapter && !o.chunkedLoss)
    notes.push(
      `LitGPT LoRA always applies lm_head in 128-token chunks (${LITGPT}/litgpt/finetune/lora.py#L355): uses less memory than planned without chunked loss`,
    );
  notes.push(
    `train.max_seq_length caps samples; LitGPT trains at the longest sample of the data up to it (${LITGPT}/litgpt/finetune/lora.py#L301-L305)`,
  );
  if (model.repo !== x.arch.hfId)
    notes.push(
      `LitGPT's registry names ${x.arch.hfId} as ${model.repo} (Hugging Face redirects the old name; ${LITGPT_CONFIG_PY}#L${model.line})`,
    );
  const run = `litgpt ${command} ${checkpointDir} --config ${LITGPT_FILE}`;
  const script = [
    '#!/usr/bin/env bash',
    `# LitGPT ${LITGPT_VERSION} ${command} (generated by vramplan): ${planSummary(x)}`,
    ...(nodes > 1
      ? [
          `# Run on each of the ${nodes} machines: NODE_RANK=<0..${nodes - 1}> MASTER_ADDR=<machine 0> bash ${LITGPT_SCRIPT}`,
          '# (Lightning reads MASTER_ADDR, MASTER_PORT and NODE_RANK: fabric/plugins/environments/lightning.py)',
        ]
      : []),
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
    ...(nodes > 1
      ? [
          ': "${NODE_RANK:?set NODE_RANK to this machine\'s index}"',
          ': "${MASTER_ADDR:?set MASTER_ADDR to machine 0}"',
          `export NODE_RANK MASTER_ADDR MASTER_PORT=\${MASTER_PORT:-${MASTER_PORT}}`,
        ]
      : []),
    '# LitGPT loads its own converted checkpoint (lit_model.pth, model_config.yaml) from checkpoint_dir;',
    '# litgpt download fetches the Hugging Face weights and converts them (HF_TOKEN for gated models).',
    `[ -f ${checkpointDir}/lit_model.pth ] || litgpt download ${model.repo}`,
    run,
    '',
  ].join('\n');
  return {
    engine,
    ok: true,
    files: [
      { path: LITGPT_FILE, content: doc.toString() },
      { path: LITGPT_SCRIPT, content: script },
      {
        path: 'requirements.txt',
        content: `# Versions the generated files were written for (generated by vramplan)\n${LITGPT_PINS.join('\n')}\n`,
      },
    ],
    notes,
  };
}
