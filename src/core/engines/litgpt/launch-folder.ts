/**
 * The files the LitGPT launcher writes (./launch.ts) that `--from <folder>` reads back: litgpt.yaml, and the
 * subcommand of launch.sh beside it (finetune_lora or finetune_full decides the method).
 */
import type { LaunchFolderReader } from '../def.js';
import { litgptWithScript } from './from.js';

/** The `--config` YAML of `litgpt finetune_lora | finetune_full`. */
export const LITGPT_FILE = 'litgpt.yaml';
/** The script that downloads the checkpoint and runs the subcommand. */
export const LITGPT_SCRIPT = 'launch.sh';

export const LITGPT_LAUNCH_FOLDER: LaunchFolderReader = {
  files: [LITGPT_FILE],
  read: (flags, folder) => {
    const script = folder.text(LITGPT_SCRIPT);
    return script === null ? flags : litgptWithScript(flags, script);
  },
};
