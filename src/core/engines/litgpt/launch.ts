/**
 * LitGPT launcher: `litgpt.yaml` for `litgpt finetune_lora | finetune_full --config`, the download and run
 * lines, pinned versions, and LitGPT's behaviour rules. Keys and behaviour read at litgpt v0.5.13
 * (tag v0.5.13 = commit 26857050fe3ff627cd714fe92f5838f51a3d5efa, "chore: bump version to 0.5.13").
 */
import { Document } from 'yaml';
import type { EstimateOptions } from '../../../schema/estimate.js';
import {
  dataParallel,
  globalBatch,
  isAdapter,
  learningRate,
  MASTER_PORT,
  nodesOf,
  planSummary,
} from '../../launch/common.js';
import { writtenLoraDropout, loraAlpha } from '../../launch/common.js';
import { withRocmTorch } from '../../launch/rocm-torch.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { changesFor, type RuleInput } from '../rules.js';
import { LITGPT_CONFIG_PY, litgptModel } from './models.js';
import { LITGPT_FILE, LITGPT_SCRIPT } from './launch-folder.js';
import {
  LITGPT,
  LITGPT_PINS,
  quantized,
  litgptQuantize,
  litgptPrecision,
  OPTIM,
  hasMlp,
  LITGPT_RULES,
  LITGPT_VERSION,
} from './rules.js';

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
  if (o.method !== 'full' && !quantized(o) && !['bf16', 'fp16', 'fp32'].includes(o.weights))
    return `LitGPT quantizes with bitsandbytes nf4/fp4/int8 only (plan has ${o.weights})`;
  if (!litgptPrecision(o))
    return `no LitGPT precision holds ${o.weights} weights with ${o.compute} compute (bf16-true, bf16-mixed, 16-true, 16-mixed, 32-true)`;
  if (!OPTIM[o.optimizer]) return `optimizer ${o.optimizer} has no LitGPT class mapping`;
  return null; // the profile's forbid rules: launch/index.ts launchBlocker checks them first
}

/** The LitGPT subcommand that runs the plan (__main__.py PARSER_DATA finetune_lora / finetune_full). */
export const litgptCommand = (o: EstimateOptions): string =>
  isAdapter(o) ? 'finetune_lora' : 'finetune_full';

const LITGPT_RECIPES =
  'https://github.com/Lightning-AI/litgpt/tree/26857050fe3ff627cd714fe92f5838f51a3d5efa/config_hub/finetune/llama-3.1-8b';
/**
 * Learning rate, warmup and weight decay from LitGPT's own recipes at v0.5.13 (26857050),
 * config_hub/finetune/llama-3.1-8b: lora.yaml and qlora.yaml lr 2e-4, lr_warmup_steps 10, weight_decay 0.0;
 * full.yaml lr 2e-4, lr_warmup_steps 25, weight_decay 0.1 (all with AdamW).
 */
export function litgptSchedule(o: EstimateOptions): {
  lr: number;
  warmup: number;
  weightDecay: number;
  note: string;
} {
  const recipe = isAdapter(o) ? (quantized(o) ? 'qlora.yaml' : 'lora.yaml') : 'full.yaml';
  const [warmup, weightDecay] = isAdapter(o) ? [10, 0.0] : [25, 0.1];
  return {
    lr: 2e-4,
    warmup,
    weightDecay,
    note: `AdamW lr 2e-4, weight decay ${weightDecay}, ${warmup} warmup steps: LitGPT's own ${recipe} (${LITGPT_RECIPES})`,
  };
}

function optimizerBlock(o: EstimateOptions): Record<string, unknown> {
  const m = OPTIM[quantized(o) ? 'paged-adamw' : o.optimizer]!;
  const schedule = litgptSchedule(o);
  const adamw = m.class_path.includes('AdamW');
  // The recipes' AdamW rate; another optimizer keeps the general starting rate (launch/common.ts learningRate).
  const init: Record<string, unknown> = { lr: adamw ? schedule.lr : learningRate(o) };
  // torch.optim.AdamW's default weight decay is 0.01; LitGPT's recipes write their own (litgptSchedule).
  if (adamw) init.weight_decay = schedule.weightDecay;
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
      lora_dropout: writtenLoraDropout(o),
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
    lr_warmup_steps: litgptSchedule(o).warmup,
    epochs: 1,
    max_seq_length: o.seq,
  };
  // EvalArgs: validate_args requires eval.max_new_tokens (lora.py L570-L574).
  config.eval = { interval: 100, max_new_tokens: 100, max_iters: 100 };
  config.optimizer = optimizerBlock(o);
  config.logger_name = 'csv';
  config.seed = 1337;
  const doc = new Document(config, { version: '1.1' });
  doc.commentBefore = ` LitGPT ${LITGPT_VERSION} config (generated by vramplan): ${planSummary(x)}\n Run: bash ${LITGPT_SCRIPT}\n ${litgptSchedule(o).note}`;
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
        content: `# Versions the generated files were written for (generated by vramplan)\n${withRocmTorch(x.gpu, LITGPT_PINS).join('\n')}\n`,
      },
    ],
    notes,
  };
}
