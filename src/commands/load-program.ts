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
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

type Program = typeof import('./program.js');

/** The build's training run sets it to the cache file's path: write the code cache when the process exits. */
export const WRITE_CODE_CACHE_ENV = 'VRAMPLAN_WRITE_CODE_CACHE';

/**
 * V8 counts a function's work (bytecode run, loop iterations) against this budget before it considers the
 * function for optimizing; V8 11.3's default is 67,584 (`node --v8-options`, --interrupt-budget). A cold `plan`
 * runs the search's functions a few thousand times each, and on two cores the optimizing compiler's
 * background work competed with the search: six times the default took the first `plan()` of
 * grpo-qwen2.5-7b from 3.4-3.6 s to 2.4-2.7 s of CPU and the circuit and fleet scenarios' by a third; nine
 * times took up to 11% more off the cold `plan` of five scenarios than six on the shared VM at load 14-20 (3, 20
 * and 40 times were slower on bench-everything: docs/performance.md). Set before the program's code is compiled
 * (the code cache's training run sets it too: V8 accepts a cache only under the flags it was made with).
 */
const INTERRUPT_BUDGET = 9 * 67_584;

/**
 * The V8 settings the program runs under (once per process, before its code is compiled). Other flags were measured
 * and left out: docs/performance.md "V8 flags measured and left out".
 */
export function tuneV8(): void {
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
}

export async function loadProgram(): Promise<Program> {
  tuneV8();
  const bundle = fileURLToPath(new URL('../vramplan.cjs', import.meta.url));
  const modules = fileURLToPath(new URL('./program.js', import.meta.url));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < statSync(modules).mtimeMs)
    return import('./program.js');
  return runBundle(bundle).program;
}

/** Evaluate the CommonJS bundle `file` as Node's loader would wrap it, with `<file>.cache` when it fits. */
export function runBundle(file: string): { program: Program; cacheUsed: boolean } {
  tuneV8();
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
    process.once('exit', () => {
      // Under the flags the program starts with (V8 stamps a cache with the flags it was made under): HiGHS's
      // load sets --liftoff-only (solve/highs.ts), which turns off the two tier-up flags (v8/v8
      // src/flags/flag-definitions.h: DEFINE_NEG_IMPLICATION(liftoff_only, ...)), so all three go back.
      setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
      writeFileSync(cacheFile, Buffer.concat([id, script.createCachedData()]));
    });
  return {
    program: module.exports,
    cacheUsed: cachedData !== undefined && !script.cachedDataRejected,
  };
}
