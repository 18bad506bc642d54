/** Writes the rented folders of sky-folders.ts under DIR (sky.py reads them). Usage: tsx sky-write.ts DIR */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { skyFolders } from './sky-folders.js';

const [dir] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: sky-write.ts DIR\n');
  process.exit(1);
}
const out = resolve(dir);
rmSync(out, { recursive: true, force: true });
const folders = skyFolders();
for (const f of folders)
  for (const file of f.files) {
    const p = join(out, f.name, file.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, file.content);
  }
process.stdout.write(`${folders.length} folders in ${out}\n`);
