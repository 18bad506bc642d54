// cli.ts registers only the command named on the command line; help and typos still see every command.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandNamed, registerCommands } from '../../src/commands/index.js';

const names = (p: Command): string[] => p.commands.map((c) => c.name());
const ALL = [
  'estimate',
  'validate',
  'explain',
  'launch',
  'check',
  'plan',
  'compare',
  'catalog',
  'schema',
];

describe('commandNamed', () => {
  it('names the first argument when it is a command, after the global --no-color', () => {
    expect(commandNamed(['node', 'cli.js', 'plan', 'x.yaml', '--json'])).toBe('plan');
    expect(commandNamed(['node', 'cli.js', '--no-color', 'estimate', '--model', 'm'])).toBe(
      'estimate',
    );
  });

  it('names none for help, help <cmd>, a typo, a bare call or an option first', () => {
    for (const rest of [['--help', 'plan'], ['help', 'plan'], ['plann'], [], ['-V'], ['schema2']])
      expect(commandNamed(['node', 'cli.js', ...rest])).toBeUndefined();
  });
});

describe('registerCommands', () => {
  it('registers every command, in help order, when none is named', async () => {
    const p = new Command('vramplan');
    await registerCommands(p);
    expect(names(p)).toEqual(ALL);
  });

  it('registers the named command alone, with its options', async () => {
    const p = new Command('vramplan');
    await registerCommands(p, 'plan');
    expect(names(p)).toEqual(['plan']);
    expect(p.commands[0]!.options.map((o) => o.long)).toContain('--json');
  });

  it('the CLI still lists every command in help and suggests the nearest to a typo', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
    const help = run('--help').stdout;
    for (const n of ALL) expect(help).toMatch(new RegExp(`^  ${n}\\b`, 'm'));
    expect(run('plann').stderr).toContain('(Did you mean plan?)');
  });
});
