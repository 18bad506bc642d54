/**
 * Write a folder of files all-or-nothing: fill a temp folder beside the target, then rename it into place.
 * A crash leaves at most a hidden temp folder, never a half-written target, and the next write beside it
 * sweeps it away (or puts back a folder it had moved aside). Every folder written holds a marker file
 * (LAUNCH_MARKER) listing its files with their hashes; `force` replaces only a folder that holds those
 * files alone, unchanged; `keepOld` moves the old folder aside as `<name>.old-<time>` instead. Neither ever
 * touches the working folder, a folder above it, the home folder or the root.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { UserError } from './errors.js';
import { LAUNCH_MARKER, markerEntries, markerText, surveyFolder } from './launch-marker.js';
import { MAX_NAME_BYTES, checkOutPath, makeParents, removeMade } from './out-path.js';

export { LAUNCH_MARKER } from './launch-marker.js';

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

/** Names of `list`, at most five, then how many more. */
const named = (list: readonly string[], more: boolean): string => {
  const SHOWN = 5;
  const rest = list.length - SHOWN;
  return `${list.slice(0, SHOWN).join(', ')}${rest > 0 ? `, ${rest} more` : ''}${more ? ' and more' : ''}`;
};

/** Why `--force` may not replace the launch folder `dir`: files it holds beyond its unchanged files. */
export function changedFolderRefusal(dir: string): string | null {
  const target = resolve(dir);
  let entries: Map<string, string> | null;
  try {
    entries = markerEntries(readFileSync(join(target, LAUNCH_MARKER), 'utf8'));
  } catch (e) {
    return `--out: cannot read ${join(dir, LAUNCH_MARKER)} (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (entries === null)
    return `--out: ${dir} was written by an older vramplan whose marker lists no files, so edits in it cannot be told apart; --force replaces only folders whose files are listed`;
  const s = surveyFolder(target, entries);
  const why: string[] = [];
  if (s.others.length > 0 || s.truncated)
    why.push(`files 'vramplan launch' did not write (${named(s.others, s.truncated)})`);
  if (s.edited.length > 0) why.push(`files edited since it wrote them (${named(s.edited, false)})`);
  return why.length === 0
    ? null
    : `--out: ${dir} holds ${why.join(' and ')}; --force replaces only unchanged launch files, so nothing was written`;
}

export interface FolderFile {
  /** Path relative to the folder; no '..' segments. */
  path: string;
  content: string;
  /** POSIX mode, e.g. 0o755 for scripts. */
  mode?: number;
}

export interface WriteMode {
  /** Replace an existing launch folder that holds only its own files, unchanged. */
  force?: boolean;
  /** Move an existing launch folder aside as `<name>.old-<time>` (its path is returned) and write anew. */
  keepOld?: boolean;
  /** The time that names the folder kept aside (default now). */
  now?: Date;
}

export interface WrittenFolder {
  dir: string;
  /** Where the old folder was moved (keepOld), else null. */
  keptAs: string | null;
}

/** The prefix of this folder's temp names: `.<name>.tmp-`, or a hash of a name too long to extend. */
function tmpPrefix(target: string): string {
  const base = basename(target);
  const LONGEST_SUFFIX = 48; // '.tmp-<pid>-<ms>-old' and the dot before the name, with room to spare
  const name =
    Buffer.byteLength(base) + LONGEST_SUFFIX <= MAX_NAME_BYTES
      ? base
      : createHash('sha256').update(base).digest('hex').slice(0, 16);
  return `.${name}.tmp-`;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Temp folders an interrupted write left beside `target` (their process is gone): a half-written new
 * folder is removed; an old folder moved aside is put back when the target is missing, else removed (it
 * held only unchanged launch files, or it would not have been moved).
 */
function sweepLeftovers(target: string): void {
  const parent = dirname(target);
  const prefix = tmpPrefix(target);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-\d+(-old)?$/.exec(name.slice(prefix.length));
    if (!m || alive(Number(m[1]))) continue;
    const p = join(parent, name);
    try {
      if (m[2] && !existsSync(target) && !isLink(target)) renameSync(p, target);
      else rmSync(p, { recursive: true, force: true });
    } catch {
      /* left for a later write */
    }
  }
}

/** `<target>.old-<UTC time>`, with `-2`, `-3`... when that is taken. */
function keptName(target: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (let i = 1; ; i++) {
    const p = `${target}.old-${stamp}${i > 1 ? `-${i}` : ''}`;
    if (!existsSync(p) && !isLink(p)) return p;
  }
}

/**
 * Write `files` into `dir` atomically. An existing `dir` is refused unless `force` (then replaced when it
 * holds only the unchanged files launch wrote) or `keepOld` (then moved aside).
 */
export function writeLaunchFolder(
  files: readonly FolderFile[],
  dir: string,
  mode: WriteMode = {},
): WrittenFolder {
  const target = checkOutPath('--out', dir);
  for (const f of files) {
    const p = normalize(f.path);
    if (isAbsolute(p) || p.split(/[\\/]/).includes('..') || p === LAUNCH_MARKER)
      throw new Error(`launch file path escapes the folder: ${f.path}`);
  }
  const made = makeParents('--out', target);
  try {
    sweepLeftovers(target);
    const exists = existsSync(target) || isLink(target);
    if (exists && !mode.force && !mode.keepOld)
      throw new UserError(
        `--out: ${dir} already exists`,
        'Pass --force to replace it (a folder vramplan launch wrote, unchanged), --keep-old to move it aside, or choose another folder.',
      );
    if (exists) {
      const unsafe = forceRefusal(dir);
      if (unsafe) throw new UserError(unsafe);
      const changed = mode.keepOld ? null : changedFolderRefusal(dir);
      if (changed)
        throw new UserError(
          changed,
          `Move them elsewhere, or pass --keep-old to keep the old folder as ${basename(target)}.old-<time>.`,
        );
    }
    const keptAs = writeInPlace(files, target, dir, exists, mode);
    return { dir: target, keptAs };
  } catch (e) {
    removeMade(made);
    throw e;
  }
}

function writeInPlace(
  files: readonly FolderFile[],
  target: string,
  dir: string,
  exists: boolean,
  mode: WriteMode,
): string | null {
  const tmp = join(dirname(target), `${tmpPrefix(target)}${process.pid}-${Date.now()}`);
  let keptAs: string | null = null;
  try {
    mkdirSync(tmp);
    writeFileSync(join(tmp, LAUNCH_MARKER), markerText(files), { mode: 0o644 });
    for (const f of files) {
      const p = join(tmp, normalize(f.path));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content, { mode: f.mode ?? 0o644 });
    }
    if (exists) {
      // Move the old folder aside first so a failed rename can put it back.
      const old = mode.keepOld ? keptName(target, mode.now ?? new Date()) : `${tmp}-old`;
      renameSync(target, old);
      try {
        renameSync(tmp, target);
      } catch (e) {
        renameSync(old, target);
        throw e;
      }
      if (mode.keepOld) keptAs = old;
      else rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, target);
    }
  } catch (e) {
    try {
      rmSync(tmp, { recursive: true, force: true });
    } catch {
      /* report the write error below, not this one */
    }
    throw e instanceof UserError
      ? e
      : new UserError(
          `--out: cannot write ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
  }
  return keptAs;
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
