/**
 * The files the Hugging Face launcher writes (./launch.ts) that `--from <folder>` reads back: the Trainer's
 * arguments (or axolotl's YAML), and the process count and FSDP settings of the accelerate.yaml beside them.
 */
import type { LaunchFolderReader } from '../def.js';
import type { FromFlags } from '../../from/common.js';

/** The Trainer's (and TRL's) arguments, read by train.py (./trainer.ts). */
export const HF_ARGS_FILE = 'hf-args.json';
/** axolotl's config (./axolotl.ts). */
export const AXOLOTL_FILE = 'axolotl.yaml';
/** `accelerate launch --config_file` (./accelerate.ts). */
export const ACCELERATE_FILE = 'accelerate.yaml';

/**
 * accelerate.yaml's process count (and machine count), and its FSDP stage and offload unless DeepSpeed shards;
 * in GRPO server mode accelerate.yaml counts the trainers, and the vLLM server's GPUs come on top.
 */
function withAccelerate(flags: FromFlags, acc: FromFlags | null): FromFlags {
  if (!acc) return flags;
  const out = { ...flags };
  for (const k of ['gpus', 'gpus-per-node'] as const) if (acc[k] !== undefined) out[k] = acc[k];
  const server = flags['rollout-gpus'];
  if (typeof server === 'number' && typeof acc.gpus === 'number') out.gpus = acc.gpus + server;
  if (acc.framework === 'hf' && acc.zero !== undefined && out.framework !== 'deepspeed') {
    out.zero = acc.zero;
    if (acc.offload !== undefined) out.offload = acc.offload;
  }
  return out;
}

export const HF_LAUNCH_FOLDER: LaunchFolderReader = {
  files: [HF_ARGS_FILE, AXOLOTL_FILE],
  read: (flags, folder) => withAccelerate(flags, folder.flags(ACCELERATE_FILE)),
};
