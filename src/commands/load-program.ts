/**
 * The program `vramplan` runs. A full build (`npm run build`, scripts/bundle.mjs) bundles it into
 * dist/vramplan.cjs, with a V8 code cache beside it (dist/vramplan.cjs.cache) of the code a cold `estimate`
 * and `plan` run: one file to read and little to compile, which was most of a cold start. Anything else
 * loads the ES modules: running from the sources (tsx), a build without the bundle, or a bundle older than
 * tsc's output (`tsc` run alone after the last full build). The cache is used only when it was written for
 * this very bundle (the build id on the bundle's first line heads the cache) and V8 accepts it (same V8
 * version and flags); otherwise V8 compiles the bundle as it runs, as it would without a cache.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

type Program = typeof import('./program.js');

/** The build's training run sets it to the cache file's path: write the code cache when the process exits. */
export const WRITE_CODE_CACHE_ENV = 'VRAMPLAN_WRITE_CODE_CACHE';

export async function loadProgram(): Promise<Program> {
  const bundle = fileURLToPath(new URL('../vramplan.cjs', import.meta.url));
  const modules = fileURLToPath(new URL('./program.js', import.meta.url));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < statSync(modules).mtimeMs)
    return import('./program.js');
  return runBundle(bundle).program;
}

/** Evaluate the CommonJS bundle `file` as Node's loader would wrap it, with `<file>.cache` when it fits. */
export function runBundle(file: string): { program: Program; cacheUsed: boolean } {
  // ASCII only (scripts/bundle.mjs checks it): Latin-1 reads it as UTF-8 would, without decoding.
  const source = readFileSync(file, 'latin1');
  const id = Buffer.from(source.slice(0, source.indexOf('\n') + 1));
  const cacheFile = `${file}.cache`;
  let cachedData: Buffer | undefined;
  try {
    const cache = readFileSync(cacheFile);
    if (cache.subarray(0, id.length).equals(id)) cachedData = cache.subarray(id.length);
  } catch {
    // No cache: V8 compiles the bundle as it runs.
  }
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData },
  );
  const module = { exports: {} as Program };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  if (process.env[WRITE_CODE_CACHE_ENV] === cacheFile)
    process.once('exit', () =>
      writeFileSync(cacheFile, Buffer.concat([id, script.createCachedData()])),
    );
  return {
    program: module.exports,
    cacheUsed: cachedData !== undefined && !script.cachedDataRejected,
  };
}
