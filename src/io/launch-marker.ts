/**
 * The marker file of a launch folder: it says `vramplan launch` wrote the folder and lists every file it
 * wrote with its SHA-256 (as sha256sum prints it). `--force` replaces a folder only while it holds these
 * files alone, unchanged: a checkpoint the training wrote into it, or an edit of `train.py`, is never lost.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The file every launch folder holds: what `--force` checks before it replaces a folder. */
export const LAUNCH_MARKER = '.vramplan-launch';

const HEADER = [
  "Written by 'vramplan launch'. 'vramplan launch --force' replaces only a folder that holds this file,",
  'and only while the folder holds the files below and nothing else, each unchanged (SHA-256, as sha256sum prints it).',
];
const ENTRY = /^([0-9a-f]{64}) {2}(.+)$/;
// A launch folder's files are a few KiB each; a listed file larger than any input file is not ours.
const MAX_HASHED_BYTES = 16 * 1024 * 1024;
// Entries walked before the survey stops (a folder of checkpoints is refused long before).
const MAX_WALKED = 10_000;

export const sha256 = (data: string | Buffer): string =>
  createHash('sha256').update(data).digest('hex');

/** The marker's text for the files written. */
export function markerText(files: readonly { path: string; content: string }[]): string {
  const lines = files.map((f) => `${sha256(f.content)}  ${f.path.split('\\').join('/')}`);
  return `${[...HEADER, ...lines].join('\n')}\n`;
}

/** The files a marker lists (path → SHA-256); null for a marker that lists none (an older vramplan's). */
export function markerEntries(text: string): Map<string, string> | null {
  const entries = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = ENTRY.exec(line);
    if (m) entries.set(m[2]!, m[1]!);
  }
  return entries.size > 0 ? entries : null;
}

export interface FolderSurvey {
  /** Files (and links, devices...) the marker does not list, relative to the folder. */
  others: string[];
  /** Listed files whose content changed. */
  edited: string[];
  /** The walk stopped early: more entries than MAX_WALKED. */
  truncated: boolean;
}

/** What `dir` holds beyond the unchanged files its marker lists (the marker is read by the caller). */
export function surveyFolder(dir: string, entries: ReadonlyMap<string, string>): FolderSurvey {
  const survey: FolderSurvey = { others: [], edited: [], truncated: false };
  let walked = 0;
  const walk = (rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(dir, rel)).sort();
    } catch {
      survey.others.push(rel === '' ? '.' : `${rel}/`);
      return;
    }
    for (const name of names) {
      if (++walked > MAX_WALKED) {
        survey.truncated = true;
        return;
      }
      const path = rel === '' ? name : `${rel}/${name}`;
      if (path === LAUNCH_MARKER) continue;
      let st;
      try {
        st = lstatSync(join(dir, path));
      } catch {
        survey.others.push(path);
        continue;
      }
      if (st.isDirectory()) {
        walk(path);
        if (survey.truncated) return;
        continue;
      }
      const want = entries.get(path);
      if (want === undefined || !st.isFile()) survey.others.push(path);
      else if (st.size > MAX_HASHED_BYTES || !sameHash(join(dir, path), want))
        survey.edited.push(path);
    }
  };
  walk('');
  return survey;
}

function sameHash(file: string, want: string): boolean {
  try {
    return sha256(readFileSync(file)) === want;
  } catch {
    return false;
  }
}
