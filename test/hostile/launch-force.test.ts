/**
 * `launch --force` loses no data: it replaces only a folder that `launch` wrote (its marker file lists the
 * files with their hashes) while it holds those files alone, unchanged, and never the working folder, a
 * folder above it, the home folder or `/`; `--keep-old` moves a used folder aside instead. Every refusal is
 * one line, exit 1, with nothing written or deleted.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-force-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const LAUNCH = ['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--gpu', 'rtx-4090'];

function launch(
  cwd: string,
  out: string,
  env: Record<string, string> = {},
  extra: readonly string[] = ['--force'],
) {
  const r = spawnSync(process.execPath, [CLI, ...LAUNCH, '--out', out, ...extra], {
    cwd,
    encoding: 'utf8',
    timeout: 170_000,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every path under `dir` (names only), to show nothing was written or deleted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('launch --force: refused targets', () => {
  const project = join(scratch.dir, 'project');
  const sub = join(project, 'sub');
  const home = join(scratch.dir, 'home');
  beforeAll(() => {
    mkdirSync(sub, { recursive: true });
    mkdirSync(home);
    writeFileSync(join(project, 'data.txt'), 'precious');
    writeFileSync(join(sub, 'notes.txt'), 'precious too');
  });

  const cases: [string, string, string, RegExp][] = [
    ['the working folder (.)', 'sub', '.', /working folder or a folder above it/],
    ['the parent folder (..)', 'sub', '..', /working folder or a folder above it/],
    ['an absolute parent', 'sub', '__PROJECT__', /working folder or a folder above it/],
    ['the home folder', '', '__HOME__', /home folder/],
    ['the root folder', '', '/', /root folder/],
    ['a folder launch did not write', '', 'sub', /not written by 'vramplan launch'/],
    ['a plain file', '', 'data.txt', /not a folder 'vramplan launch' wrote/],
  ];
  for (const [name, cwdRel, out, why] of cases)
    it(name, () => {
      const before = tree(scratch.dir);
      const r = launch(
        join(project, cwdRel),
        out.replace('__PROJECT__', project).replace('__HOME__', home),
        { HOME: home },
      );
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(why);
      expect(tree(scratch.dir)).toEqual(before);
    });

  it('a folder launch wrote, unchanged, is replaced', () => {
    const first = launch(project, 'run1', { HOME: home });
    expect(first.status, first.stderr).toBe(0);
    const readme = readFileSync(join(project, 'run1', 'README.md'), 'utf8');
    writeFileSync(join(project, 'run1', 'README.md'), 'stale');
    writeFileSync(join(project, 'run1', 'README.md'), readme);
    const again = launch(project, 'run1', { HOME: home });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/kept the old folder/);
    expect(readdirSync(project).filter((n) => n.startsWith('run1'))).toEqual(['run1']);
    expect(readdirSync(join(project, 'run1'))).toContain('.vramplan-launch');
  });
});

describe('launch --force over a used launch folder', () => {
  const project = join(scratch.dir, 'used');
  const home = join(scratch.dir, 'home2');
  beforeAll(() => {
    mkdirSync(project);
    mkdirSync(home);
  });

  /** A fresh launch folder `name`, then `change` applied to it. */
  function used(name: string, change: (dir: string) => void): string {
    const first = launch(project, name, { HOME: home }, []);
    expect(first.status, first.stderr).toBe(0);
    change(join(project, name));
    return name;
  }

  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      'a checkpoint the run wrote',
      (d) => {
        mkdirSync(join(d, 'outputs', 'checkpoint-500'), { recursive: true });
        writeFileSync(join(d, 'outputs', 'checkpoint-500', 'adapter.safetensors'), 'weights');
      },
      /did not write \(outputs\/checkpoint-500\/adapter\.safetensors\)/,
    ],
    [
      'an edited train.py',
      (d) => appendFileSync(join(d, 'train.py'), '\n# my dataset\n'),
      /edited since it wrote them \(train\.py\)/,
    ],
    [
      'a marker that lists no files (an older vramplan)',
      (d) => writeFileSync(join(d, '.vramplan-launch'), "Written by 'vramplan launch'.\n"),
      /marker lists no files/,
    ],
  ];
  cases.forEach(([name, change, why], i) =>
    it(`is refused when it holds ${name}; nothing is written or deleted`, () => {
      const out = used(`run-${i}`, change);
      const before = tree(project);
      const contents = readFileSync(join(project, out, 'train.py'), 'utf8');
      const r = launch(project, out, { HOME: home });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^vramplan: --out: /);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/--keep-old/);
      expect(tree(project)).toEqual(before);
      expect(readFileSync(join(project, out, 'train.py'), 'utf8')).toBe(contents);
    }),
  );

  it('--keep-old moves the used folder aside, says where, and writes a new one', () => {
    const out = used('kept', (d) => appendFileSync(join(d, 'train.py'), '\n# my dataset\n'));
    const edited = readFileSync(join(project, out, 'train.py'), 'utf8');
    const r = launch(project, out, { HOME: home }, ['--force', '--keep-old']);
    expect(r.status, r.stderr).toBe(0);
    const kept = /^kept the old folder as (.+)$/m.exec(r.stdout)?.[1];
    expect(kept, r.stdout).toMatch(/kept\.old-\d{8}T\d{6}Z$/);
    expect(readFileSync(join(kept!, 'train.py'), 'utf8')).toBe(edited);
    expect(readFileSync(join(project, out, 'train.py'), 'utf8')).not.toBe(edited);
  });
});
