/**
 * An output folder's path, checked before anything is written: not empty, every name within the file
 * system's limit, and its nearest existing folder above a folder (not a file, a device or a dangling
 * link). Missing folders above it are made one at a time, never with a recursive mkdir: on /proc a
 * recursive mkdir of a missing folder retries without end. Each refusal is one UserError line.
 */
import { lstatSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { badValue, UserError } from './errors.js';

// NAME_MAX of Linux file systems (ext4, xfs, btrfs, tmpfs), in bytes: limits.h.
export const MAX_NAME_BYTES = 255;

const codeOf = (e: unknown): string =>
  (e as NodeJS.ErrnoException).code ?? (e as Error).message ?? 'error';

const shortName = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** The absolute path of `dir`, refused when empty or when a name in it is too long. */
export function checkOutPath(flag: string, dir: string): string {
  if (dir.trim() === '') throw badValue(flag, dir, 'a folder path (e.g. run1)');
  const target = resolve(dir);
  for (const name of target.split(sep)) {
    const bytes = Buffer.byteLength(name);
    if (bytes > MAX_NAME_BYTES)
      throw new UserError(
        `${flag}: the name '${shortName(name)}' is ${bytes} bytes; a file or folder name has at most ${MAX_NAME_BYTES} bytes`,
      );
  }
  return target;
}

/** Why the existing path `p` cannot hold a folder, or null when it is a folder (or a link to one). */
function notAFolder(p: string): string | null {
  let st;
  try {
    st = statSync(p);
  } catch (e) {
    const code = codeOf(e);
    return code === 'ENOENT'
      ? `${p} is a symbolic link to a missing target`
      : `${p} cannot be read (${code})`;
  }
  return st.isDirectory() ? null : `${p} is a file, not a folder`;
}

/**
 * Make the missing folders above `target`; returns those made (top first), for `removeMade` when the
 * write fails. Refuses, one line, when a path above is not a folder or a folder cannot be made.
 */
export function makeParents(flag: string, target: string): string[] {
  const missing: string[] = [];
  let p = dirname(target);
  for (;;) {
    let exists = true;
    try {
      lstatSync(p);
    } catch (e) {
      const code = codeOf(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new UserError(`${flag}: cannot write ${target}: ${p} cannot be read (${code})`);
      exists = false;
    }
    if (exists) {
      const why = notAFolder(p);
      if (why) throw new UserError(`${flag}: cannot write ${target}: ${why}`);
      break;
    }
    missing.unshift(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  const made: string[] = [];
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      removeMade(made);
      throw new UserError(`${flag}: cannot write ${target}: cannot create ${m} (${codeOf(e)})`);
    }
    made.push(m);
  }
  return made;
}

/** Remove folders `makeParents` made (still empty), deepest first; errors are ignored. */
export function removeMade(made: readonly string[]): void {
  for (const m of [...made].reverse())
    try {
      rmdirSync(m);
    } catch {
      /* not empty or gone: leave it */
    }
}
