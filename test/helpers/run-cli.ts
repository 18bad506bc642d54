/** Runs the built CLI (dist/cli.js) as a subprocess; the test script builds it before vitest runs. */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const cliBuilt = (): boolean => existsSync(CLI);

export function runCli(args: readonly string[], opts: { cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    timeout: 170_000,
    // A plan of a thousand plans as JSON runs past spawnSync's 1 MiB default.
    maxBuffer: 64 * 2 ** 20,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A temp folder for one test file, with a writer; call `remove` in afterAll. */
export function scratchDir(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name: string, content: string | Buffer): string {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    /** A folder `name` holding `files` (name → text), as `launch` leaves one. */
    folder(name: string, files: Record<string, string>): string {
      const path = join(dir, name);
      mkdirSync(path);
      for (const [f, text] of Object.entries(files)) writeFileSync(join(path, f), text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** chmod 000 a file; false (and permissions restored) when this process can still read it, as root can. */
export function makeUnreadable(path: string): boolean {
  chmodSync(path, 0o000);
  try {
    const fd = openSync(path, 'r');
    readSync(fd, Buffer.alloc(1));
    closeSync(fd);
  } catch {
    return true;
  }
  chmodSync(path, 0o600);
  return false;
}
