/**
 * Every input file is bounded: a regular file only (not a folder, /dev/zero or a named pipe),
 * at most 16 MiB, nested at most 100 levels. Each refusal is one stderr line naming the file, never a
 * stack trace (exit 70) or a hang, for every command that reads a file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-input-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

const DEPTH = 20_000;
const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

/** The commands that read a file, with `f` as that file. */
const COMMANDS: [string, (f: string) => string[]][] = [
  ['plan', (f) => ['plan', f]],
  ['compare', (f) => ['compare', f, 'scenarios/default.yaml']],
  ['estimate --from', (f) => ['estimate', '--from', f]],
  ['estimate --model', (f) => ['estimate', '--model', f]],
  ['launch --from-plan', (f) => ['launch', '--from-plan', f, '--out', join(scratch.dir, 'out')]],
];

function refuses(args: string[], ...mentions: RegExp[]): void {
  const t0 = performance.now();
  const r = runCli(args);
  expect(performance.now() - t0).toBeLessThan(120_000); // a hang detector (bounded reads), not a speed check
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error|call stack/i);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  for (const m of mentions) expect(r.stderr).toMatch(m);
  expect(existsSync(join(scratch.dir, 'out'))).toBe(false);
}

describe('input files: nesting, size and kind', () => {
  const files: Record<string, string> = {};
  beforeAll(() => {
    files.deepJson = scratch.file('deep.json', deepArray);
    files.deepObj = scratch.file('deep-obj.json', deepObject);
    files.deepYaml = scratch.file('deep.yaml', `a: ${deepArray}\n`);
    files.big = join(scratch.dir, 'big.json');
    // 17 MiB of spaces around an empty object: valid JSON, over the cap.
    writeFileSync(files.big, `{${' '.repeat(17 * 1024 * 1024)}}`);
    files.fifo = join(scratch.dir, 'pipe.yaml');
    execFileSync('mkfifo', [files.fifo]);
  });

  for (const [name, args] of COMMANDS) {
    it(`${name}: a 20,000-deep JSON array`, () =>
      refuses(args(files.deepJson!), /deep\.json: nested more than 100 levels/));
    it(`${name}: a 20,000-deep JSON object`, () =>
      refuses(args(files.deepObj!), /deep-obj\.json: nested more than 100 levels/));
    it(`${name}: a 17 MiB file`, () => refuses(args(files.big!), /big\.json: .*16 MiB limit/));
    it(`${name}: /dev/zero`, () => refuses(args('/dev/zero'), /\/dev\/zero: is a device/));
    it(`${name}: a named pipe`, () => refuses(args(files.fifo!), /pipe\.yaml: is a named pipe/));
  }
  it('plan and estimate --from: a 20,000-deep YAML flow list', () => {
    refuses(['plan', files.deepYaml!], /deep\.yaml: nested more than 100 levels/);
    refuses(['estimate', '--from', files.deepYaml!], /deep\.yaml: nested more than 100 levels/);
  });
  it('a deep but allowed file still reads (depth 50)', () => {
    const f = scratch.file('ok.json', `${'['.repeat(50)}${']'.repeat(50)}`);
    const r = runCli(['plan', f]);
    expect(r.stderr).not.toMatch(/nested more than/);
  });
});
