/** Hugging Face Accelerate config YAML and the launch script (accelerate launch, torchrun alternative). */
import { Document } from 'yaml';
import { DEEPSPEED_FILE } from './deepspeed.js';
import { distributionOf, type DistKind } from './distribution.js';
import { TRAIN_SCRIPT } from './trainer.js';
import { decoderLayerClass } from '../../launch/modules.js';
import { MASTER_PORT, nodesOf } from '../../launch/common.js';
import {
  DEEPSPEED_NO_LOCAL_RANK,
  FSDP2_BNB_4BIT,
  FSDP_OFFLOAD_SHARDED_SAVE,
  FSDP_SHARDED_SAVE,
  changes,
  ruleBlocker,
  ruleNotes,
} from './rules.js';
import { launchedFsdpVersion } from '../../../schema/fsdp-version.js';
import { SLURM_FILE, slurmScript } from '../../launch/slurm.js';
import type { EngineOutput, LaunchInput } from '../../launch/types.js';
import { ACCELERATE_FILE, HF_ARGS_FILE } from './launch-folder.js';

export const LAUNCH_SCRIPT = 'launch.sh';

const DISTRIBUTED_TYPE: Record<DistKind, string> = {
  single: 'NO',
  ddp: 'MULTI_GPU',
  deepspeed: 'DEEPSPEED',
  fsdp: 'FSDP',
};

// Keys as `accelerate config` writes them at accelerate v1.14.0 (beb0672a commands/config/cluster.py):
// https://huggingface.co/docs/accelerate/usage_guides/fsdp
function fsdpConfig(x: LaunchInput): Record<string, unknown> {
  const o = x.options;
  const cls = decoderLayerClass(x.arch);
  // FSDP1 for bitsandbytes 4-bit weights (rule fsdp2-bnb-4bit), FSDP2 otherwise.
  const v1 = launchedFsdpVersion(o) === 1;
  const c: Record<string, unknown> = {
    fsdp_version: v1 ? 1 : 2,
    // FSDP2: resharding after forward is ZeRO-3, keeping parameters gathered ZeRO-2; FSDP1 takes the
    // strategy name (utils/constants.py FSDP_SHARDING_STRATEGY).
    fsdp_reshard_after_forward: v1 ? (o.zero === 3 ? 'FULL_SHARD' : 'SHARD_GRAD_OP') : o.zero === 3,
    fsdp_offload_params: o.offload === 'optimizer+params',
    fsdp_auto_wrap_policy: 'TRANSFORMER_BASED_WRAP',
    fsdp_cpu_ram_efficient_loading: true,
    fsdp_activation_checkpointing: false,
    // FULL_STATE_DICT: the only type Trainer.save_model writes weights for (rule fsdp-sharded-save).
    fsdp_state_dict_type: changes(FSDP_SHARDED_SAVE, x) ? 'FULL_STATE_DICT' : 'SHARDED_STATE_DICT',
  };
  if (v1) {
    // FSDP1-only keys (cluster.py asks them for fsdp_version 1); PEFT v0.20.0 docs/source/accelerate/fsdp.md
    // QLoRA config: use_orig_params false, sync_module_states true with cpu_ram_efficient_loading.
    c.fsdp_backward_prefetch = 'BACKWARD_PRE';
    c.fsdp_forward_prefetch = false;
    c.fsdp_use_orig_params = false;
    c.fsdp_sync_module_states = true;
  }
  if (cls) c.fsdp_transformer_layer_cls_to_wrap = cls;
  return c;
}

// Config file fields: https://huggingface.co/docs/accelerate/package_reference/cli#accelerate-config
export function emitAccelerate(x: LaunchInput): EngineOutput {
  const engine = 'Hugging Face Accelerate';
  const o = x.options;
  const d = distributionOf(x);
  if (d.blocker) return { engine, ok: false, reason: d.blocker };
  const forbidden = ruleBlocker(x, x.gradAccum);
  if (forbidden) return { engine, ok: false, reason: forbidden };
  const { nodes } = nodesOf(x);
  const config: Record<string, unknown> = {
    compute_environment: 'LOCAL_MACHINE',
    debug: false,
    distributed_type: DISTRIBUTED_TYPE[d.kind],
    downcast_bf16: 'no',
    gpu_ids: 'all',
    machine_rank: 0,
    main_training_function: 'main',
    num_machines: nodes,
    // Accelerate's num_processes counts every process on every machine.
    num_processes: d.processes,
    rdzv_backend: 'static',
    same_network: true,
    use_cpu: false,
  };
  if (nodes > 1) {
    // Overridden per node by launch.sh (--machine_rank, --main_process_ip from SLURM or the environment).
    config.main_process_ip = 'MASTER_ADDR';
    config.main_process_port = MASTER_PORT;
  }
  const notes = ruleNotes(x, [FSDP2_BNB_4BIT, FSDP_SHARDED_SAVE, FSDP_OFFLOAD_SHARDED_SAVE]);
  // With deepspeed_config_file, precision lives in the DeepSpeed JSON; Accelerate rejects it twice.
  if (d.kind === 'deepspeed') {
    config.deepspeed_config = {
      deepspeed_config_file: DEEPSPEED_FILE,
      zero3_init_flag: o.zero === 3,
      // Across machines Accelerate starts each node's ranks itself (launch.sh per node), as torchrun does.
      ...(nodes > 1 ? { deepspeed_multinode_launcher: 'standard' } : {}),
    };
    notes.push(
      'mixed precision is set in deepspeed.json (Accelerate ignores mixed_precision with a DeepSpeed config file)',
    );
  } else {
    config.mixed_precision = o.compute === 'fp32' ? 'no' : o.compute;
  }
  if (d.kind === 'fsdp') {
    config.fsdp_config = fsdpConfig(x);
    if (!decoderLayerClass(x.arch))
      notes.push("no decoder-layer class known: FSDP wraps the model's _no_split_modules");
  }
  // YAML 1.1 mode quotes no/on/yes, which PyYAML (Accelerate, axolotl, torchtune readers) would read as booleans.
  const doc = new Document(config, { version: '1.1' });
  doc.commentBefore = ` Accelerate config for: accelerate launch --config_file ${ACCELERATE_FILE} (generated by vramplan)`;
  return {
    engine,
    ok: true,
    files: [
      { path: ACCELERATE_FILE, content: doc.toString() },
      { path: LAUNCH_SCRIPT, content: launchScript(x, d.kind, d.processes) },
      ...(nodes > 1 ? [{ path: SLURM_FILE, content: slurmScript(x, 'bash launch.sh') }] : []),
    ],
    notes,
  };
}

/**
 * After a SHARDED_STATE_DICT run (rule fsdp-offload-sharded-save): the last checkpoint's FSDP shards
 * (Trainer._save_optimizer_and_scheduler → save_fsdp_model, transformers v5.14.1 trainer.py L3264-L3271:
 * <checkpoint>/pytorch_model_fsdp_0) merged into
 * outputs/ as safetensors by `accelerate merge-weights` (accelerate v1.14.0 commands/merge.py).
 */
function mergeLines(multiNode: boolean): string[] {
  const merge = [
    'last=$(ls -d outputs/checkpoint-* | sort -t- -k2 -n | tail -n 1)',
    'accelerate merge-weights "$last/pytorch_model_fsdp_0" outputs',
    // Trainer.save_model writes nothing under SHARDED_STATE_DICT (transformers v5.14.1 trainer.py L3801-L3805):
    // the config and tokenizer beside the merged weights make outputs/ loadable with from_pretrained.
    `python -c 'import json; from transformers import AutoConfig, AutoTokenizer; m = json.load(open("${HF_ARGS_FILE}"))["model_name_or_path"]; AutoConfig.from_pretrained(m).save_pretrained("outputs"); AutoTokenizer.from_pretrained(m).save_pretrained("outputs")'`,
  ];
  return [
    '# Merge the sharded final checkpoint into outputs/ (one process; host RAM for the model alone):',
    ...(multiNode ? ['if [ "$NODE_RANK" = 0 ]; then', ...merge.map((l) => `  ${l}`), 'fi'] : merge),
  ];
}

// accelerate launch: https://huggingface.co/docs/accelerate/basic_tutorials/launch ; torchrun: https://pytorch.org/docs/stable/elastic/run.html
export function launchScript(x: LaunchInput, kind: DistKind, processes: number): string {
  const lines = [
    '#!/usr/bin/env bash',
    `# Launch the plan in README.md (generated by vramplan). Run from this folder.`,
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
  ];
  if (x.powerLimitW !== null)
    lines.push('# Apply the power cap first (needs root): bash power-limit.sh');
  const { nodes, perNode } = nodesOf(x);
  const merge = changes(FSDP_OFFLOAD_SHARDED_SAVE, x);
  if (nodes > 1) {
    lines.push(
      `# ${nodes} machines x ${perNode} GPUs: run this on every machine with NODE_RANK (0..${nodes - 1}) and`,
      '# MASTER_ADDR (the address of NODE_RANK 0) set; slurm.sbatch sets both from SLURM.',
      ': "${MASTER_ADDR:?set MASTER_ADDR to the address of machine 0}"',
      `accelerate launch --config_file ${ACCELERATE_FILE} --machine_rank "\${NODE_RANK:?set NODE_RANK}" --main_process_ip "$MASTER_ADDR" --main_process_port "\${MASTER_PORT:-${MASTER_PORT}}" ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`,
      ...(merge ? mergeLines(true) : []),
    );
    // torchrun without Accelerate's FSDP settings would run plain DDP: FSDP plans get no alternative line.
    if (kind !== 'fsdp')
      lines.push(
        '# Without Accelerate:',
        ...(kind === 'deepspeed' && changes(DEEPSPEED_NO_LOCAL_RANK, x)
          ? [
              // deepspeed/launcher/launch.py (v0.19.5) adds --local_rank=N unless --no_local_rank (rule deepspeed-no-local-rank).
              `# deepspeed --hostfile hostfile --no_local_rank --num_nodes ${nodes} --num_gpus ${perNode} ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`,
            ]
          : []),
        `# torchrun --nnodes ${nodes} --nproc_per_node ${perNode} --node_rank "$NODE_RANK" --rdzv_backend c10d --rdzv_endpoint "$MASTER_ADDR:${MASTER_PORT}" ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`,
      );
    return `${lines.join('\n')}\n`;
  }
  lines.push(`accelerate launch --config_file ${ACCELERATE_FILE} ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`);
  if (merge) lines.push(...mergeLines(false));
  if (kind !== 'fsdp') {
    lines.push('# Without Accelerate:');
    lines.push(
      processes > 1
        ? `# torchrun --standalone --nproc_per_node ${processes} ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`
        : `# python ${TRAIN_SCRIPT} ${HF_ARGS_FILE}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
