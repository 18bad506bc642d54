// The built CLI runs the program from dist/vramplan.cjs with its V8 code cache (commands/load-program.ts,
// scripts/bundle.mjs): the cache is used when it was written for this bundle, ignored otherwise, and the
// bundle prints what tsc's ES modules print.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/run-cli.js';

const BUNDLE = join(ROOT, 'dist', 'vramplan.cjs');
const LOADER = join(ROOT, 'dist', 'commands', 'load-program.js');
const MODULES = join(ROOT, 'dist', 'commands', 'program.js');

/** Run an ES module snippet in a plain Node process (the CLI's own V8 flags), from the package root. */
function node(code: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 2 ** 20,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Whether runBundle used the cache for `file`, then the program's stdout for `args`. */
function runBundleWith(file: string, args: readonly string[]): { cacheUsed: boolean; out: string } {
  const r = node(`
    const { runBundle } = await import(${JSON.stringify(LOADER)});
    const { program, cacheUsed } = runBundle(${JSON.stringify(file)});
    process.stderr.write(String(cacheUsed));
    await program.runProgram([process.execPath, 'vramplan', ...${JSON.stringify(args)}]);
  `);
  expect(r.status).toBe(0);
  return { cacheUsed: r.stderr === 'true', out: r.stdout };
}

const ESTIMATE = ['estimate', '--model', 'llama-2-13b', '--json'];

describe('the bundle and its code cache', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-bundle-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("runs with the build's cache and prints what the ES modules print", () => {
    const expected = runCli(ESTIMATE).stdout;
    expect(expected).toMatch(/"allocatedBytes"/);
    const bundled = runBundleWith(BUNDLE, ESTIMATE);
    expect(bundled.cacheUsed).toBe(true);
    expect(bundled.out).toBe(expected);
    for (const args of [
      ESTIMATE,
      ['estimate', '--model', 'mistral-7b', '--method', 'qlora', '--gpu', 'rtx-4090'],
      ['plan', 'scenarios/default.yaml', '--json'],
    ]) {
      const modules = node(`
        const { runProgram } = await import(${JSON.stringify(MODULES)});
        await runProgram([process.execPath, 'vramplan', ...${JSON.stringify(args)}]);
      `);
      expect(modules.status).toBe(0);
      expect(runCli(args).stdout).toBe(modules.stdout);
    }
  });

  it("ignores another build's cache and a cache V8 rejects, and still runs", () => {
    // A copy of the package's layout: the bundle finds catalogs/ from the folder holding package.json.
    mkdirSync(join(tmp, 'dist'));
    copyFileSync(join(ROOT, 'package.json'), join(tmp, 'package.json'));
    symlinkSync(join(ROOT, 'catalogs'), join(tmp, 'catalogs'));
    const source = readFileSync(BUNDLE, 'utf8');
    const firstLine = source.slice(0, source.indexOf('\n') + 1);
    const cache = readFileSync(`${BUNDLE}.cache`);
    const copy = join(tmp, 'dist', 'vramplan.cjs');
    const expected = runCli(ESTIMATE).stdout;

    // The same bundle and cache: used.
    writeFileSync(copy, source);
    writeFileSync(`${copy}.cache`, cache);
    expect(runBundleWith(copy, ESTIMATE)).toEqual({ cacheUsed: true, out: expected });

    // Another build's id on the bundle's first line (same length): not used.
    writeFileSync(copy, `${firstLine.replace(/[0-9a-f]/g, '0')}${source.slice(firstLine.length)}`);
    expect(runBundleWith(copy, ESTIMATE)).toEqual({ cacheUsed: false, out: expected });

    // The right id over bytes V8 cannot read: rejected by V8.
    writeFileSync(copy, source);
    writeFileSync(`${copy}.cache`, Buffer.concat([Buffer.from(firstLine), Buffer.alloc(4096, 7)]));
    expect(runBundleWith(copy, ESTIMATE)).toEqual({ cacheUsed: false, out: expected });

    // No cache at all.
    rmSync(`${copy}.cache`);
    expect(runBundleWith(copy, ESTIMATE)).toEqual({ cacheUsed: false, out: expected });
  });
});

it('the sources find shipped files from the package root, not from their own URL', () => {
  // In the bundle every module's import.meta.url is the bundle's: a path relative to a module would point
  // elsewhere. Allowed: io/paths.ts (walks up to package.json), load-program.ts and plan-client.ts (tsc's
  // ES modules only, never bundled), solve/lp.ts (resolves a package, which works from the bundle too).
  const allowed = ['commands/load-program.ts', 'io/paths.ts', 'io/plan-client.ts', 'solve/lp.ts'];
  const src = join(ROOT, 'src');
  const using = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter(
      (f) => /\.tsx?$/.test(f) && readFileSync(join(src, f), 'utf8').includes('import.meta.url'),
    )
    .map((f) => f.split('\\').join('/'))
    .sort();
  expect(using).toEqual(allowed);
});
