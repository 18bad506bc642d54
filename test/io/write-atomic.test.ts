/** writeAtomic: the target is either untouched or fully written; a failed write leaves no temp file. */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/io/errors.js';
import { writeAtomic } from '../../src/io/write-atomic.js';

const root = mkdtempSync(join(tmpdir(), 'vramplan-write-atomic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => {
  const d = join(root, `case-${n++}`);
  mkdirSync(d);
  return d;
};

/** Every entry under `dir`, recursively, as relative paths. */
const tree = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).map(String).sort();

function fails(f: () => void, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UserError);
  expect((err as Error).message).toMatch(message);
}

describe('writeAtomic', () => {
  it('writes the content and leaves only the target', () => {
    const d = freshDir();
    writeAtomic(join(d, 'plans.json'), '{"a":1}\n');
    expect(readFileSync(join(d, 'plans.json'), 'utf8')).toBe('{"a":1}\n');
    expect(tree(d)).toEqual(['plans.json']);
  });

  it('refuses an existing file without force (content kept) and replaces it with force', () => {
    const d = freshDir();
    const f = join(d, 'plans.md');
    writeFileSync(f, 'old');
    fails(() => writeAtomic(f, 'new'), /plans\.md: already exists; not overwriting/);
    expect(readFileSync(f, 'utf8')).toBe('old');
    writeAtomic(f, 'new', { force: true });
    expect(readFileSync(f, 'utf8')).toBe('new');
    expect(tree(d)).toEqual(['plans.md']);
  });

  it('a missing folder: UserError, nothing created', () => {
    const d = freshDir();
    fails(
      () => writeAtomic(join(d, 'nope', 'plans.csv'), 'x'),
      /nope\/plans\.csv: cannot write \(ENOENT\); expected a writable file path/,
    );
    expect(tree(d)).toEqual([]);
  });

  it('a parent that is a file: UserError (ENOTDIR, not the cleanup error), no temp left', () => {
    const d = freshDir();
    writeFileSync(join(d, 'file'), 'keep');
    fails(
      () => writeAtomic(join(d, 'file', 'plans.svg'), 'x'),
      /file\/plans\.svg: cannot write \(ENOTDIR\)/,
    );
    expect(tree(d)).toEqual(['file']);
    expect(readFileSync(join(d, 'file'), 'utf8')).toBe('keep');
  });

  it('a rename that fails after the temp was written: the temp is removed, the target untouched', () => {
    // With force, a non-empty folder as target gets past the exists check; rename(file, dir) then fails.
    const d = freshDir();
    mkdirSync(join(d, 'plans.json'));
    writeFileSync(join(d, 'plans.json', 'inside'), 'keep');
    fails(
      () => writeAtomic(join(d, 'plans.json'), 'x', { force: true }),
      /plans\.json: cannot write \((EISDIR|ENOTEMPTY|EEXIST|EPERM)\)/,
    );
    expect(tree(d)).toEqual(['plans.json', join('plans.json', 'inside')]);
    expect(tree(d).filter((p) => p.includes('.tmp'))).toEqual([]);
  });
});
