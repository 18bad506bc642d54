/**
 * every numeric constant of the time and memory models (src/core/time, src/core/memory and the
 * engines' memory profiles) names a source outside calibration/ in its comment (a URL, a paper's § or arXiv
 * number, a library file at a commit, an issue), or is listed as assumed in calibration/assumed.json with the
 * rows it moves (scripts/constant-sensitivity.ts computes them). A regex over the source text finds them:
 * `const NAME = <numeric expression>` at module level, and `field: <numeric expression>` inside objects.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const rel = (...p: string[]) => join(...p).replaceAll('\\', '/');

function modelFiles(): string[] {
  const ts = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => rel(dir, f));
  const engines = readdirSync(join(ROOT, 'src/core/engines'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => rel('src/core/engines', d.name, 'memory.ts'))
    .filter((f) => {
      try {
        readFileSync(join(ROOT, f));
        return true;
      } catch {
        return false;
      }
    });
  // Kernel figures several engines' profiles share (engines/moe-call.ts, engines/graph-kernel.ts) and the serving
  // engines' base profile (engines/serving-base.ts).
  return [
    ...ts('src/core/time'),
    ...ts('src/core/memory'),
    ...engines,
    'src/core/engines/moe-call.ts',
    'src/core/engines/graph-kernel.ts',
    'src/core/engines/serving-base.ts',
  ];
}

// A numeric expression: digits, exponents, arithmetic, parentheses, and lists of them.
const NUMERIC = String.raw`[-+*/().\s\d_e,[\]]*\d[-+*/().\s\d_e,[\]]*`;
const CONST_RE = new RegExp(
  String.raw`^(?:export )?const ([A-Z][A-Z0-9_]*)(?::[^=]+)? = (${NUMERIC});`,
);
const FIELD_RE = new RegExp(String.raw`^\s+(\w+): (${NUMERIC}),?\s*(?://.*)?$`);
const OWNER_RE = /^(?:export )?const (\w+)/;
const SUBOWNER_RE = /^\s+(\w+): \{\s*$/;
const COMMENT_RE = /^\s*(?:\/\/|\/\*|\*)/;
/** What counts as a source: a URL, arXiv, a § reference, a commit, an owner/repo issue or pull number. */
export const SOURCE_RE =
  /https?:\/\/|github\.com\/|arXiv|§|@[0-9a-f]{7,}\b|commit [0-9a-f]{7,}\b|[\w.-]+\/[\w.-]+(?: | issue | pull request )?#\d+/;

export interface Constant {
  file: string;
  name: string;
  line: number;
  value: string;
  comment: string;
}

/** Every numeric constant of one file, with the comment that documents it. */
export function constantsOf(file: string): Constant[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const out: Constant[] = [];
  let owner = '';
  let sub = '';
  const isConstLine = (l: string) => CONST_RE.test(l) || FIELD_RE.test(l) || SUBOWNER_RE.test(l);
  lines.forEach((l, i) => {
    const own = OWNER_RE.exec(l);
    if (own) [owner, sub] = [own[1]!, ''];
    const so = SUBOWNER_RE.exec(l);
    if (so) sub = `${so[1]!}.`;
    const c = CONST_RE.exec(l);
    const f = c ? null : FIELD_RE.exec(l);
    if (!c && !f) return;
    const value = (c ? c[2] : f![2])!.trim().replace(/,$/, '');
    if (f && /^[01]$/.test(value)) return; // 0 / 1 fields: flags, empty parts and neutral starts
    // Its comment: trailing, then the comment block right above it or above the run of sibling constants
    // it ends (`const A = 1;\nconst B = 2;` share the comment above A).
    const parts = [l.includes('//') ? l.slice(l.indexOf('//')) : ''];
    let j = i - 1;
    while (j >= 0 && isConstLine(lines[j]!) && !lines[j]!.includes('//')) j--;
    for (; j >= 0 && COMMENT_RE.test(lines[j]!); j--) parts.push(lines[j]!);
    out.push({
      file,
      name: c ? c[1]! : `${owner}.${sub}${f![1]!}`,
      line: i + 1,
      value,
      comment: parts.join('\n'),
    });
  });
  return out;
}

interface Assumed {
  file: string;
  name: string;
  find: string;
  neutral: string;
  why: string;
  moves: { id: string; at: number; neutral: number }[];
}
const { constants: assumed, definitions } = JSON.parse(
  readFileSync(join(ROOT, 'calibration/assumed.json'), 'utf8'),
) as { constants: Assumed[]; definitions: { file: string; name: string; why: string }[] };
const constants = modelFiles().flatMap(constantsOf);

describe('every numeric constant of the time and memory models has a source or an assumed entry', () => {
  it('finds the constants (the scan itself works)', () => {
    expect(constants.length).toBeGreaterThan(60);
    const names = constants.map((c) => c.name);
    for (const n of [
      'GEMM_EFF_HOPPER',
      'NCCL_SM_SHARE',
      'STEP_OVERHEAD_SECONDS',
      'KERNELS.torchao.eff8',
      'HF_MEMORY.allocatorSlack',
    ])
      expect(names).toContain(n);
  });

  it('each one is sourced in its comment or listed in calibration/assumed.json', () => {
    const listed = new Set([...assumed, ...definitions].map((a) => `${a.file}:${a.name}`));
    const missing = constants
      .filter((c) => !SOURCE_RE.test(c.comment) && !listed.has(`${c.file}:${c.name}`))
      .map((c) => `${c.file}:${c.line} ${c.name} = ${c.value}`);
    expect(missing).toEqual([]);
  });

  it('each assumed entry names a constant that exists, with a find text that occurs once', () => {
    for (const a of assumed) {
      const text = readFileSync(join(ROOT, a.file), 'utf8');
      expect(text.split(a.find).length - 1, `${a.name}: ${a.find}`).toBe(1);
      expect(a.why.length, a.name).toBeGreaterThan(10);
      expect(a.find === a.neutral, a.name).toBe(false);
      expect(Array.isArray(a.moves), a.name).toBe(true);
    }
  });
});
