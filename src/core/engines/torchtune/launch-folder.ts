/**
 * The file the torchtune launcher writes (./launch.ts) that `--from <folder>` reads back: torchtune.yaml, whose
 * header carries the `tune run --nproc_per_node N` line the launcher writes (the process count).
 */
import type { LaunchFolderReader } from '../def.js';

/** The recipe config `tune run <recipe> --config` reads. */
export const TORCHTUNE_FILE = 'torchtune.yaml';

export const TORCHTUNE_LAUNCH_FOLDER: LaunchFolderReader = {
  files: [TORCHTUNE_FILE],
  read: (flags, folder) => {
    // The run line's process count (./launch.ts writes `tune run --nproc_per_node N` into the header).
    const n = /--nproc_per_node (\d+)/.exec(folder.text(TORCHTUNE_FILE) ?? '')?.[1];
    return n ? { ...flags, gpus: Number(n) } : flags;
  },
};
