/**
 * Every subcommand, registered on the program. A command named on the command line registers alone, so
 * `plan` does not load the other commands' option tables (estimate's ~50 flags); help, `help <cmd>` and
 * a mistyped name register them all (commander lists them and suggests the nearest). Actions import
 * their implementation lazily.
 */
import type { Command } from 'commander';

type Registrar = () => Promise<(program: Command) => void>;

/** In help order. */
const REGISTRARS: readonly (readonly [string, Registrar])[] = [
  ['estimate', async () => (await import('./estimate.js')).registerEstimate],
  ['validate', async () => (await import('./validate.js')).registerValidate],
  ['explain', async () => (await import('./explain.js')).registerExplain],
  ['launch', async () => (await import('./launch.js')).registerLaunch],
  ['check', async () => (await import('./check.js')).registerCheck],
  ['plan', async () => (await import('./plan.js')).registerPlan],
  ['compare', async () => (await import('./compare.js')).registerCompare],
  ['catalog', async () => (await import('./catalog.js')).registerCatalog],
  ['schema', async () => (await import('./schema.js')).registerSchema],
];

/** The subcommand argv names (the first argument after the global `--no-color`), if it is one of ours. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const name = argv.slice(2).find((a) => a !== '--no-color');
  return REGISTRARS.some(([n]) => n === name) ? name : undefined;
}

/** Register `only` (a command name), or every command when it is undefined. */
export async function registerCommands(program: Command, only?: string): Promise<void> {
  const chosen = REGISTRARS.filter(([name]) => only === undefined || name === only);
  const registrars = await Promise.all(chosen.map(([, load]) => load()));
  for (const register of registrars) register(program);
}
