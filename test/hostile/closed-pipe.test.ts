// A reader that stops early (`vramplan plan x.yaml --json | head -c 100`) closes the pipe under a long
// write: the CLI stops quietly with its own exit code, no stack trace (EPIPE handled in src/cli.ts).
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliBuilt, ROOT } from '../helpers/run-cli.js';

beforeAll(() => expect(cliBuilt()).toBe(true));

describe('closed stdout pipe', () => {
  it('a 1.5 MB plan --json into a reader that stops after the first chunk exits 0, no stack trace', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'plan', 'scenarios/bench-everything.yaml', '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(0);
  });
});
