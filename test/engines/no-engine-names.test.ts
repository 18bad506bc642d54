// Shared layers never name an engine: the core outside core/engines (model, memory, time, plan, from, launch,
// check...), the commands, the file readers (io, `--from` included), the UI and the flag checks read what an engine does from its registration
// (core/engines/store.ts, the traits of schema/engine.ts), so a string literal equal to a registered engine id or
// framework name (comments aside) is a branch on an engine that belongs in its folder.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { engineNames } from '../../src/schema/engine.js';
import { frameworkNames } from '../../src/schema/estimate.js';

// Every layer of src/core but the engines' own folder and registry, the commands, io, the UI and the flag checks.
const SHARED = [
  ...readdirSync('src/core')
    .filter((name) => name !== 'engines')
    .map((name) => join('src/core', name)),
  'src/commands',
  'src/io',
  'src/ui',
  'src/schema/flags.ts',
];

/**
 * Literals allowed, by file, each with a comment saying why it is no branch on an engine (none today: the
 * registrations themselves, schema/engine.ts and schema/estimate.ts, are outside the scanned layers).
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {};

const NAMES = new Set<string>([...engineNames(), ...frameworkNames()]);

function sourceFiles(dir: string): string[] {
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(p) ? [p] : [];
  });
}

/** The string literals (quoted or template, type positions included) of `text` equal to a name in NAMES. */
function namedLiterals(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && NAMES.has(n.text)) {
      const { line } = src.getLineAndCharacterOfPosition(n.getStart(src));
      out.push(`${file}:${line + 1} '${n.text}'`);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

describe('engine names in shared code', () => {
  it('the names come from the registry (engine ids and framework names)', () => {
    for (const n of ['hf-fsdp', 'vllm', 'llama.cpp', 'hf', 'deepspeed']) expect(NAMES).toContain(n);
  });

  it('the scan finds a quoted name and skips comments (it is not vacuous)', () => {
    const text = [
      "// framework === 'vllm' in a comment",
      '/* and in a block: "unsloth" */',
      "if (o.framework === 'hf-fsdp') x = `torchtune`;",
      "type T = 'sglang' | 'other';",
    ].join('\n');
    expect(namedLiterals('x.ts', text)).toEqual([
      "x.ts:3 'hf-fsdp'",
      "x.ts:3 'torchtune'",
      "x.ts:4 'sglang'",
    ]);
    // The engines' own folders name themselves, as they should.
    expect(
      sourceFiles('src/core/engines').flatMap((f) => namedLiterals(f, readFileSync(f, 'utf8')))
        .length,
    ).toBeGreaterThan(20);
  });

  it('no shared file names an engine outside the listed exceptions', () => {
    expect(SHARED).toEqual(
      expect.arrayContaining([
        'src/core/memory',
        'src/core/time',
        'src/core/plan',
        'src/core/from',
      ]),
    );
    expect(SHARED).toEqual(expect.arrayContaining(['src/core/launch', 'src/core/model']));
    expect(SHARED).toEqual(expect.arrayContaining(['src/commands', 'src/io', 'src/ui']));
    expect(SHARED).not.toContain('src/core/engines');
    const found = SHARED.flatMap(sourceFiles).flatMap((f) => {
      const allowed = new Set(ALLOWED[f] ?? []);
      return namedLiterals(f, readFileSync(f, 'utf8')).filter(
        (hit) => !allowed.has(hit.slice(hit.indexOf(' ') + 2, -1)),
      );
    });
    expect(found).toEqual([]);
  });
});
