/** The file the Unsloth launcher writes (./launch.ts) that `--from <folder>` reads back: unsloth-args.json. */
import type { LaunchFolderReader } from '../def.js';

/** FastLanguageModel's and the TRL trainer's arguments, read by the training script. */
export const UNSLOTH_ARGS_FILE = 'unsloth-args.json';

export const UNSLOTH_LAUNCH_FOLDER: LaunchFolderReader = { files: [UNSLOTH_ARGS_FILE] };
