/**
 * Every flag README.md or a docs/ page names with its command in an inline code span (`estimate --prefix-cache`,
 * `launch --keep-old`) is one that command's `--help` lists: the README never documents a flag the CLI
 * rejects.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt } from './helpers/run-cli.js';

const COMMANDS = [
  'estimate',
  'plan',
  'launch',
  'explain',
  'compare',
  'validate',
  'catalog',
  'schema',
  'check',
];

/** command → flags README names with it (from `` `[npx vramplan ]<command> … --flag …` `` spans). */
function readmeFlags(markdown: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const span = new RegExp(`\`(?:(?:npx )?vramplan )?(${COMMANDS.join('|')})\\s([^\`\\n]*)\``, 'g');
  for (const m of markdown.matchAll(span)) {
    const flags = [...m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((f) => f[1]!);
    const set = found.get(m[1]!) ?? new Set<string>();
    for (const f of flags) set.add(f);
    found.set(m[1]!, set);
  }
  return found;
}

describe('README flags', () => {
  beforeAll(() => expect(cliBuilt()).toBe(true));
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
  const flags = readmeFlags(pages.map((p) => readFileSync(join(ROOT, p), 'utf8')).join('\n'));

  it('finds flags of the main commands', () => {
    expect(flags.get('estimate')?.has('--prefix-cache')).toBe(true);
    expect(flags.get('launch')?.size).toBeGreaterThan(0);
  });

  for (const [command, named] of flags)
    it(`every flag of \`${command}\` the README names is in its --help`, () => {
      const help = spawnSync(process.execPath, [CLI, command, '--help'], {
        encoding: 'utf8',
      }).stdout;
      const missing = [...named].filter((f) => !new RegExp(`\\s${f}[\\s,=]`).test(help));
      expect(missing, `${command} --help lacks ${missing.join(', ')}`).toEqual([]);
    });
});
