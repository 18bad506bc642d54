/**
 * Write a folder of files all-or-nothing: fill a temp folder beside the target, then rename it into place.
 * A crash leaves at most a hidden temp folder, never a half-written target.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { UserError } from './errors.js';

export interface FolderFile {
  /** Path relative to the folder; no '..' segments. */
  path: string;
  content: string;
  /** POSIX mode, e.g. 0o755 for scripts. */
  mode?: number;
}

/** Write `files` into `dir` atomically; an existing `dir` is refused unless `force`, then replaced whole. */
export function writeLaunchFolder(
  files: readonly FolderFile[],
  dir: string,
  force: boolean,
): string {
  const target = resolve(dir);
  if (existsSync(target) && !force)
    throw new UserError(
      `--out: ${dir} already exists`,
      'Pass --force to replace it, or choose another folder.',
    );
  for (const f of files) {
    const p = normalize(f.path);
    if (isAbsolute(p) || p.split(/[\\/]/).includes('..'))
      throw new Error(`launch file path escapes the folder: ${f.path}`);
  }
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(target)}.tmp-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(tmp);
    for (const f of files) {
      const p = join(tmp, normalize(f.path));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content, { mode: f.mode ?? 0o644 });
    }
    if (existsSync(target)) {
      // Move the old folder aside first so a failed rename can put it back.
      const old = `${tmp}-old`;
      renameSync(target, old);
      try {
        renameSync(tmp, target);
      } catch (e) {
        renameSync(old, target);
        throw e;
      }
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, target);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e instanceof UserError
      ? e
      : new UserError(`--out: cannot write ${dir}: ${(e as Error).message}`);
  }
  return target;
}
