/**
 * Rows each assumed constant moves: for every entry of calibration/assumed.json, evaluate every
 * calibration row (validate and validate --throughput, all rows, in-sample ones included) with the constant at
 * its value and at the entry's neutral alternative, and record the rows whose signed error moves by more than
 * 5 points. Works on a copy of the tree in a temporary folder: the entry's `find` text (which must occur exactly
 * once in `file`) is replaced by its `neutral` text there, and the CLI is run on the copy.
 *
 *   npx tsx scripts/constant-sensitivity.ts          # rewrites the `moves` of calibration/assumed.json
 *   npx tsx scripts/constant-sensitivity.ts NAME ...  # only these entries
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Move {
  id: string;
  /** Signed error (%) with the constant at its value, and at the neutral alternative. */
  at: number;
  neutral: number;
}
interface Entry {
  file: string;
  name: string;
  find: string;
  neutral: string;
  moves?: Move[];
  [k: string]: unknown;
}

const THRESHOLD = 0.05;
const root = resolve(import.meta.dirname, '..');
const assumedPath = join(root, 'calibration', 'assumed.json');
const assumed = JSON.parse(readFileSync(assumedPath, 'utf8')) as { constants: Entry[] };

const work = mkdtempSync(join(tmpdir(), 'vramplan-sensitivity-'));
for (const p of ['src', 'calibration', 'catalogs', 'package.json', 'tsconfig.json'])
  cpSync(join(root, p), join(work, p), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));

/** Signed error of every row of both reports, by id. */
function errors(): Map<string, number> {
  const out = new Map<string, number>();
  for (const args of [
    ['validate', '--json'],
    ['validate', '--throughput', '--json'],
  ]) {
    const text = execFileSync(join(work, 'node_modules', '.bin', 'tsx'), ['src/cli.ts', ...args], {
      cwd: work,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const rows = (JSON.parse(text) as { rows: { id: string; error: number }[] }).rows;
    for (const r of rows) out.set(r.id, r.error);
  }
  return out;
}

const only = new Set(process.argv.slice(2));
const base = errors();
const pct = (x: number) => Math.round(x * 1000) / 10;
try {
  for (const e of assumed.constants) {
    if (only.size > 0 && !only.has(e.name)) continue;
    const path = join(work, e.file);
    const text = readFileSync(path, 'utf8');
    const hits = text.split(e.find).length - 1;
    if (hits !== 1) throw new Error(`${e.name}: "${e.find}" occurs ${hits} times in ${e.file}`);
    writeFileSync(path, text.replace(e.find, e.neutral));
    try {
      const alt = errors();
      e.moves = [...base]
        .filter(([id, err]) => Math.abs((alt.get(id) ?? err) - err) > THRESHOLD)
        .map(([id, err]) => ({ id, at: pct(err), neutral: pct(alt.get(id) ?? err) }));
    } finally {
      writeFileSync(path, text);
    }
    process.stdout.write(`${e.name}: ${e.moves.length} rows move > 5 points\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
writeFileSync(assumedPath, `${JSON.stringify(assumed, null, 2)}\n`);
