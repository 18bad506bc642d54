/**
 * `launch --out` through paths that cannot hold a folder: one `vramplan:` line, exit 1, no stack trace, no
 * hang, and nothing changed outside `--out`. Also: a long name that fits is written (its temp folder's
 * name is shortened), and temp folders an interrupted write left are swept by the next write beside them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-out-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const LAUNCH = ['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--gpu', 'rtx-4090'];

function launch(out: string) {
  const r = spawnSync(process.execPath, [CLI, ...LAUNCH, '--out', out], {
    cwd: scratch.dir,
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

/** A pid no process has now: one that ran and exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

describe('launch --out: paths that cannot hold a folder', () => {
  beforeAll(() => {
    writeFileSync(join(scratch.dir, 'notes.txt'), 'precious');
    symlinkSync(join(scratch.dir, 'nowhere'), join(scratch.dir, 'dangling'));
  });
  const cases: [string, string, RegExp][] = [
    ['empty', '', /--out: got ''; expected a folder path/],
    ['through a file', 'notes.txt/run1', /notes\.txt is a file, not a folder/],
    ['through a dangling link', 'dangling/run1', /dangling is a symbolic link to a missing target/],
    ['under /dev/null', '/dev/null/x', /\/dev\/null is a file, not a folder/],
    [
      'a 300-character name',
      'a'.repeat(300),
      /is 300 bytes; a file or folder name has at most 255/,
    ],
    ['a 300-character folder above', `${'b'.repeat(300)}/run1`, /is 300 bytes/],
  ];
  if (existsSync('/proc/self'))
    cases.push([
      'under a missing /proc folder',
      '/proc/nonexist/sub',
      /cannot create \/proc\/nonexist/,
    ]);
  if (existsSync('/sys/kernel'))
    cases.push([
      'under a missing /sys folder',
      '/sys/nonexist/sub',
      /cannot create \/sys\/nonexist/,
    ]);
  for (const [name, out, why] of cases)
    it(name, () => {
      const before = tree(scratch.dir);
      const r = launch(out);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^vramplan: --out: /);
      expect(r.stderr).toMatch(why);
      expect(tree(scratch.dir)).toEqual(before);
    });
});

describe('launch --out: names and leftovers', () => {
  it('a 250-character name is written, and no temp folder stays beside it', () => {
    const name = 'c'.repeat(250);
    const r = launch(name);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(scratch.dir, name, 'README.md'))).toBe(true);
    expect(readdirSync(scratch.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('missing folders above --out are made', () => {
    const r = launch('deep/er/run1');
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(scratch.dir, 'deep', 'er', 'run1', '.vramplan-launch'))).toBe(true);
  });

  it('the temp folders of an interrupted write are swept; a folder moved aside is put back', () => {
    const dir = join(scratch.dir, 'swept');
    mkdirSync(dir);
    const pid = deadPid();
    mkdirSync(join(dir, `.run1.tmp-${pid}-1`));
    writeFileSync(join(dir, `.run1.tmp-${pid}-1`, 'half.txt'), 'half-written');
    mkdirSync(join(dir, `.run2.tmp-${pid}-1-old`));
    writeFileSync(join(dir, `.run2.tmp-${pid}-1-old`, 'train.py'), 'the old folder');
    // A live process's temp folder is another write in progress: left alone.
    mkdirSync(join(dir, `.run1.tmp-${process.pid}-1`));
    expect(launch(join(dir, 'run1')).status).toBe(0);
    expect(launch(join(dir, 'run2')).status).toBe(1); // put back, so it exists
    expect(readdirSync(dir).sort()).toEqual([`.run1.tmp-${process.pid}-1`, 'run1', 'run2']);
    expect(readdirSync(join(dir, 'run2'))).toEqual(['train.py']);
  });
});
