/** The file the torchtitan launcher writes (./launch.ts) that `--from <folder>` reads back: its Python recipe. */
import type { LaunchFolderReader } from '../def.js';

/** The recipe file (ConfigManager._load_config imports the module by name: TT torchtitan/config/manager.py). */
export const TORCHTITAN_FILE = 'torchtitan_vramplan.py';

export const TORCHTITAN_LAUNCH_FOLDER: LaunchFolderReader = { files: [TORCHTITAN_FILE] };
