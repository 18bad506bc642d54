/**
 * The file the serving launchers write (vllm/, sglang/, llama-cpp/ launch.ts) that `--from <folder>` reads
 * back: serve.sh, whose server command lines the engines' serve readers map.
 */
import type { LaunchFolderReader } from './def.js';

/** The script that starts the server (one line per replica). */
export const SERVE_SCRIPT = 'serve.sh';

export const SERVE_LAUNCH_FOLDER: LaunchFolderReader = { files: [SERVE_SCRIPT] };
