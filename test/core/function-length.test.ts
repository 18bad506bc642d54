// No function in src/core over ~80 lines unless a comment right above it says why, and no file in src/ over
// 800 lines (a file that grows past it is split along its own sections).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const LIMIT = 85;
const REASON = /^\/\/ Long on purpose: .+/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Top-level functions (a line starting `function`/`export function`, ending at the first `}` in column 0). */
function longFunctions(file: string): { name: string; lines: number; reasoned: boolean }[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: { name: string; lines: number; reasoned: boolean }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^(export )?(async )?function /.test(lines[i]!)) continue;
    let j = i + 1;
    while (j < lines.length && lines[j] !== '}') j++;
    const length = j - i;
    if (length > LIMIT) {
      let k = i - 1;
      while (k >= 0 && /^( \*|\/\*\*| \*\/)/.test(lines[k]!)) k--; // skip the doc comment
      out.push({
        name: `${file}:${i + 1} ${lines[i]!.slice(0, 60)}`,
        lines: length,
        reasoned: REASON.test(lines[k] ?? '') || REASON.test(lines[i - 1] ?? ''),
      });
    }
  }
  return out;
}

describe('src/core function length', () => {
  it(`has no function over ${LIMIT} lines without a "Long on purpose" reason`, () => {
    const offenders = tsFiles('src/core')
      .flatMap(longFunctions)
      .filter((f) => !f.reasoned)
      .map((f) => `${f.name} (${f.lines} lines)`);
    expect(offenders).toEqual([]);
  });

  it('the scan sees the long functions that carry a reason (it is not vacuous)', () => {
    const reasoned = tsFiles('src/core')
      .flatMap(longFunctions)
      .filter((f) => f.reasoned);
    expect(reasoned.length).toBeGreaterThan(0);
  });
});

describe('src file length', () => {
  const FILE_LIMIT = 800;
  const all = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return all(p);
      return /\.tsx?$/.test(p) ? [p] : [];
    });

  it(`has no source file over ${FILE_LIMIT} lines`, () => {
    const files = all('src');
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((f) => ({ f, n: readFileSync(f, 'utf8').split('\n').length }))
      .filter(({ n }) => n > FILE_LIMIT)
      .map(({ f, n }) => `${f} (${n} lines)`);
    expect(over).toEqual([]);
  });
});
