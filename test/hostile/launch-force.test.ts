/**
 * `launch --force` loses no data (issue 27): it replaces only a folder that `launch` wrote (its marker
 * file), and never the working folder, a folder above it, the home folder or `/`. Every refusal is one
 * line, exit 1, with nothing written or deleted.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-force-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const LAUNCH = ['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--gpu', 'rtx-4090'];

function launch(cwd: string, out: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...LAUNCH, '--out', out, '--force'], {
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

  it('a folder launch wrote is replaced whole', () => {
    const first = launch(project, 'run1', { HOME: home });
    expect(first.status, first.stderr).toBe(0);
    writeFileSync(join(project, 'run1', 'stale.txt'), 'old');
    const again = launch(project, 'run1', { HOME: home });
    expect(again.status, again.stderr).toBe(0);
    expect(readdirSync(join(project, 'run1'))).not.toContain('stale.txt');
    expect(readdirSync(join(project, 'run1'))).toContain('.vramplan-launch');
  });
});
