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
const SUBOWNER_RE = /^(\s+)(\w+|'[^']+'): \{\s*$/;
/** A line that closes an object literal opened at its indentation (`},`, `};`, `} as const;`, `}),`). */
const CLOSE_RE = /^(\s*)\}/;
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
  return constantsOfText(file, readFileSync(join(ROOT, file), 'utf8'));
}

/**
 * Every numeric constant of `text` (the source of `file`): a field is named by the module-level const it sits in
 * and the nested objects open around it (`OWNER.sub.field`); a nested object's name holds until the line that
 * closes it at its own indentation.
 */
export function constantsOfText(file: string, text: string): Constant[] {
  const lines = text.split('\n');
  const out: Constant[] = [];
  let owner = '';
  // The nested objects open at this line: their indentation and name, innermost last.
  const subs: { indent: number; name: string }[] = [];
  const isConstLine = (l: string) => CONST_RE.test(l) || FIELD_RE.test(l) || SUBOWNER_RE.test(l);
  lines.forEach((l, i) => {
    const own = OWNER_RE.exec(l);
    if (own) [owner, subs.length] = [own[1]!, 0];
    const close = CLOSE_RE.exec(l);
    if (close) while (subs.length > 0 && subs.at(-1)!.indent >= close[1]!.length) subs.pop();
    const so = SUBOWNER_RE.exec(l);
    if (so) subs.push({ indent: so[1]!.length, name: so[2]!.replaceAll("'", '') });
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
      name: c ? c[1]! : [owner, ...subs.map((x) => x.name), f![1]!].join('.'),
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

describe('the constant scanner names a field by the objects open around it', () => {
  const text = [
    'export const PROFILE: Profile = {',
    '  allocatorSlack: 0.02, // https://example.org',
    '  quantFormatFor: {',
    '    fp8: 2,',
    '    inner: {',
    '      depth: 3,',
    '    },',
    '    after: 4,',
    '  },',
    "  'dashed-key': {",
    '    share: 0.87,',
    '  },',
    '  server: { sizing: f, bytes: 5 },',
    '  serialStepHostSeconds: 0.87e-3, // a serial scheduler',
    '};',
    'const NEXT = {',
    '  top: 6,',
    '};',
  ].join('\n');
  it('closes a nested object at its own indentation, and a new owner starts afresh', () => {
    expect(constantsOfText('x.ts', text).map((c) => `${c.line} ${c.name} = ${c.value}`)).toEqual([
      '2 PROFILE.allocatorSlack = 0.02',
      '4 PROFILE.quantFormatFor.fp8 = 2',
      '6 PROFILE.quantFormatFor.inner.depth = 3',
      '8 PROFILE.quantFormatFor.after = 4',
      '11 PROFILE.dashed-key.share = 0.87',
      '14 PROFILE.serialStepHostSeconds = 0.87e-3',
      '17 NEXT.top = 6',
    ]);
  });
});

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
