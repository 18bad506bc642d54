/**
 * `--from <folder>` of a folder `vramplan launch` wrote: which config of it to read, and which engine's
 * launch-folder reader (EngineDef.launchFolder) takes the rest of the folder. Pure: src/io/from reads the files.
 */
import type { LaunchFolderReader } from '../engines/def.js';
import { engineDefs } from '../engines/store.js';

/** Every registered engine's launch configs, once each, in the order tried (registration order). */
export const launchConfigFiles = (): string[] => [
  ...new Set(engineDefs().flatMap((d) => d.launchFolder?.files ?? [])),
];

/**
 * The launch-folder reader for a folder whose config `file` maps to `framework`: that of an engine of that
 * framework (or family) which writes `file`, else of the first engine that writes it (engines of one stack, or
 * serving engines that all write serve.sh, share a file name), or null when no engine writes it.
 */
export function launchFolderReaderOf(file: string, framework: unknown): LaunchFolderReader | null {
  const writers = engineDefs().filter((d) => d.launchFolder?.files.includes(file));
  const own = writers.find(
    (d) =>
      d.profile.framework === framework ||
      (d.families as readonly unknown[] | undefined)?.includes(framework),
  );
  return (own ?? writers[0])?.launchFolder ?? null;
}
