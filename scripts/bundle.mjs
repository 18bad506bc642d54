#!/usr/bin/env node
// The second step of `npm run build` (after tsc has written the module tree to dist/): bundles the CLI into
// dist/cli.js and dist/chunks/ with esbuild, so a cold start reads a few files instead of ~300 modules.
// Every lazy `import()` of the sources stays a separate chunk, loaded only by the commands that need it.
// Ink, React, HiGHS and javascript-lp-solver stay in node_modules (only the explorer and the solver load
// them; HiGHS reads its .wasm beside its own module). The rest of dist/ is tsc's output: the explorer's
// planner worker (dist/io/plan-worker.js) and the bench scripts load it.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// zod's `z` namespace object keeps every part of zod in a bundle (its ~40 locales, JSON Schema
// import): `import { z } from 'zod'` resolves here to an object of only the members the code uses, read
// from tsc's output (types erased), so esbuild drops the rest. A member zod lacks fails the build.
const used = new Set();
for (const f of readdirSync('dist', { recursive: true, encoding: 'utf8' }))
  if (f.endsWith('.js') && !f.startsWith('chunks/') && f !== 'cli.js')
    for (const m of readFileSync(`dist/${f}`, 'utf8').matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) used.add(m[1]);
const members = [...used].sort();
const zodMembers = {
  name: 'zod-members',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (a) =>
      a.namespace === 'zod-members' ? undefined : { path: 'zod', namespace: 'zod-members' },
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-members' }, () => ({
      contents: `import { ${members.join(', ')} } from 'zod';\nexport const z = { ${members.join(', ')} };\n`,
      resolveDir: process.cwd(),
    }));
  },
};

rmSync('dist/chunks', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  external: ['ink', 'react', 'react/*', 'highs', 'javascript-lp-solver'],
  // commander is CommonJS: its `require` of Node's built-ins needs a real `require` in an ES module.
  banner: {
    js: "import { createRequire as __vramplanRequire } from 'node:module'; const require = __vramplanRequire(import.meta.url);",
  },
  plugins: [zodMembers],
  logLevel: 'warning',
});
