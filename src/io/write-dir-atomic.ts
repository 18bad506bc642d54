/**
 * Write a folder of files all-or-nothing: fill a temp folder beside the target, then rename it into place.
 * A crash leaves at most a hidden temp folder, never a half-written target. Every folder written holds a
 * marker file (LAUNCH_MARKER); `force` replaces only a folder that has it, and never the working folder,
 * a folder above it, the home folder or the root.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { UserError } from './errors.js';

/** The file every launch folder holds: what `--force` checks before it replaces a folder. */
export const LAUNCH_MARKER = '.vramplan-launch';
const MARKER_TEXT =
  "Written by 'vramplan launch'. 'vramplan launch --force' replaces only a folder that holds this file.\n";

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** `a` is `b` or a folder above it. */
const isSameOrAbove = (a: string, b: string): boolean =>
  a === b || b.startsWith(a.endsWith(sep) ? a : a + sep);

/** Why `--force` may not replace `dir` (which exists), or null when it may. */
export function forceRefusal(dir: string): string | null {
  const target = resolve(dir);
  const targets = [target, real(target)];
  const cwds = [resolve('.'), real('.')];
  const home = [resolve(homedir()), real(homedir())];
  if (targets.some((t) => t === resolve('/')))
    return `--out: ${dir} is the root folder; --force never replaces it`;
  if (targets.some((t) => home.includes(t)))
    return `--out: ${dir} is the home folder; --force never replaces it`;
  if (targets.some((t) => cwds.some((c) => isSameOrAbove(t, c))))
    return `--out: ${dir} is the working folder or a folder above it; --force never replaces it`;
  let isDir: boolean;
  try {
    isDir = lstatSync(target).isDirectory();
  } catch (e) {
    return `--out: cannot inspect ${dir} (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (!isDir)
    return `--out: ${dir} exists and is not a folder 'vramplan launch' wrote; --force replaces only those`;
  if (!existsSync(join(target, LAUNCH_MARKER)))
    return `--out: ${dir} was not written by 'vramplan launch' (no ${LAUNCH_MARKER} file in it); --force replaces only such folders: choose another folder`;
  return null;
}

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
  const exists = existsSync(target) || isLink(target);
  if (exists && !force)
    throw new UserError(
      `--out: ${dir} already exists`,
      'Pass --force to replace it (a folder vramplan launch wrote), or choose another folder.',
    );
  if (exists) {
    const why = forceRefusal(dir);
    if (why) throw new UserError(why);
  }
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
    writeFileSync(join(tmp, LAUNCH_MARKER), MARKER_TEXT, { mode: 0o644 });
    for (const f of files) {
      const p = join(tmp, normalize(f.path));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content, { mode: f.mode ?? 0o644 });
    }
    if (exists) {
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

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
