/**
 * Writes the launch folders the library check reads (folders.ts) under the directory given, plus
 * manifest.json (folder names and their files). Usage: tsx scripts/check-launch-libs/write-folders.ts DIR [--fast]
 * (--fast: the engine-kind folders only, no scenario planning).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { engineKindFolders, scenarioFolders } from './folders.js';

const [dir, ...rest] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: write-folders.ts DIR [--fast]\n');
  process.exit(1);
}
const out = resolve(dir);
rmSync(out, { recursive: true, force: true });
const folders = [
  ...engineKindFolders(),
  ...(rest.includes('--fast') ? [] : await scenarioFolders()),
];
for (const f of folders)
  for (const file of f.files) {
    const p = join(out, f.name, file.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, file.content);
  }
const manifest = folders.map((f) => ({ name: f.name, files: f.files.map((x) => x.path) }));
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`${folders.length} folders in ${out}\n`);
