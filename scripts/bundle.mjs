#!/usr/bin/env node
// The second step of `npm run build`, after tsc has written the ES modules to dist/: bundles the commander
// program (src/commands/program.ts) into one CommonJS file, dist/vramplan.cjs, and writes a V8 code cache
// of a cold `estimate` and `plan` beside it (dist/vramplan.cjs.cache), with which
// src/commands/load-program.ts evaluates the bundle. See docs/performance.md and CONTRIBUTING.md.
//
// - Every lazy `import()` of the sources stays lazy: esbuild evaluates a bundled module on its first import.
// - The terminal UI (src/commands/tui.ts and what it imports: Ink, React, the planner workers) stays in
//   tsc's ES modules: Ink has top-level await, which CommonJS cannot require. The bundle requires
//   dist/commands/tui.js in its place (an ES module without top-level await, which Node >= 20.19 can
//   require). HiGHS and javascript-lp-solver stay in node_modules too (HiGHS reads its .wasm beside its
//   own module; the solver's worker requires javascript-lp-solver by path).
// - `import.meta.url` becomes the bundle's own URL: the shipped files are found from the package root
//   (src/io/paths.ts), which is the same folder above dist/ as above dist/io/.
// - zod's `z` namespace object would keep all of zod (its ~40 locales, JSON Schema import): `import { z }
//   from 'zod'` resolves to an object of only the members the sources read (found with their types
//   stripped; a local variable named z can match too, so only zod's own exports are kept).
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { build, transformSync } from 'esbuild';

const BUNDLE = 'dist/vramplan.cjs';
const CACHE = resolve(`${BUNDLE}.cache`);

const used = new Set();
for (const f of readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) =>
  /\.tsx?$/.test(f),
)) {
  const { code } = transformSync(readFileSync(`src/${f}`, 'utf8'), {
    loader: f.endsWith('x') ? 'tsx' : 'ts',
  });
  for (const m of code.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) used.add(m[1]);
}
const zod = await import('zod');
const members = [...used].filter((m) => m in zod).sort();

const plugin = {
  name: 'vramplan',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (a) =>
      a.namespace === 'zod-members' ? undefined : { path: 'zod', namespace: 'zod-members' },
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-members' }, () => ({
      contents: `import * as zod from 'zod';\nexport const z = { ${members.map((m) => `${m}: zod.${m}`).join(', ')} };\n`,
      resolveDir: process.cwd(),
    }));
    // src/commands/tui.ts, imported from src/commands/, becomes a require of dist/commands/tui.js.
    b.onResolve({ filter: /^\.\/tui\.js$/ }, (a) =>
      dirname(a.importer) === resolve('src/commands')
        ? { path: './commands/tui.js', external: true }
        : undefined,
    );
  },
};

rmSync(CACHE, { force: true });
// The first line names this build: the loader uses a cache only under the same line.
const id = `// vramplan bundle ${randomUUID()}`;
await build({
  entryPoints: ['src/commands/program.ts'],
  outfile: BUNDLE,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  external: ['highs', 'javascript-lp-solver'],
  // No native import() in the bundle: code V8 runs from a cache has no import callback (Node 20). An
  // import() of an external module becomes a require (Node >= 20.19 can require an ES module without
  // top-level await).
  supported: { 'dynamic-import': false },
  // Without comments and indentation the bundle is a third smaller, and ASCII only (esbuild escapes the
  // rest), which the loader reads as Latin-1: several ms faster than decoding UTF-8.
  minifyWhitespace: true,
  define: { 'import.meta.url': '__vramplanUrl' },
  banner: {
    js: `${id}\n"use strict";\nconst __vramplanUrl = require('node:url').pathToFileURL(__filename).href;`,
  },
  plugins: [plugin],
  logLevel: 'warning',
});

// eslint-disable-next-line no-control-regex
if (/[^\x00-\x7f]/.test(readFileSync(BUNDLE, 'latin1')))
  throw new Error(
    `bundle: ${BUNDLE} is not ASCII only (src/commands/load-program.ts reads it as Latin-1)`,
  );

// Train the cache in one process: a cold `estimate`, then a `plan` of the default scenario (`npm start`) and
// of every other shipped scenario, so that the cache holds the code they run (a function the training run
// never called is compiled when a later run first calls it: GRPO's objective, the serving fleet, the circuits).
// The loader writes it when that process exits.
const TRAINING_SCENARIOS = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml') && f !== 'default.yaml')
  .sort()
  .map((f) => `scenarios/${f}`);
const train = `
const { runBundle } = await import('./dist/commands/load-program.js');
const { program } = runBundle(${JSON.stringify(resolve(BUNDLE))});
await program.runProgram([process.execPath, 'vramplan', 'estimate', '--model', 'llama-2-13b', '--json']);
await program.runProgram([process.execPath, 'vramplan', 'plan', 'scenarios/default.yaml', '--json']);
for (const file of ${JSON.stringify(TRAINING_SCENARIOS)})
  await program.runProgram([process.execPath, 'vramplan', 'plan', file, '--json']);
`;
execFileSync(process.execPath, ['--input-type=module', '-e', train], {
  env: { ...process.env, VRAMPLAN_WRITE_CODE_CACHE: CACHE },
  stdio: 'ignore',
});
if (!existsSync(CACHE)) throw new Error(`bundle: the training run wrote no ${CACHE}`);
