// `vramplan --version` prints package.json's version, from the fast path that loads no command.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { VERSION } from '../../src/commands/version.js';
import { ROOT, runCli } from '../helpers/run-cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

it('the version constant is package.json version', () => {
  expect(VERSION).toBe(pkg.version);
});

it('--version and -V print it and exit 0; with a command it is still commander that answers', () => {
  for (const flag of ['--version', '-V']) {
    const r = runCli([flag]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  }
  const help = runCli(['estimate', '--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/--model/);
});
