/** `vramplan explore [scenario]` and bare `vramplan`: the interactive plan explorer, when there is a terminal. */
import { packagePath } from '../io/paths.js';
import type { Command } from 'commander';

/** The scenario `npm start` and bare `vramplan` open. */
export const DEFAULT_SCENARIO = packagePath('scenarios/default.yaml');

const off = (v: string | undefined): boolean =>
  v === undefined || v === '' || v === '0' || v === 'false';

/**
 * Whether to open the Ink explorer: stdin and stdout are terminals, colour and interaction are allowed
 * (no --no-tui, --json or --export; not CI; no NO_COLOR, TERM=dumb or FORCE_COLOR=0, which --no-color sets).
 */
export function wantsTui(
  opts: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  tty: { stdin: boolean; stdout: boolean } = {
    stdin: process.stdin.isTTY === true,
    stdout: process.stdout.isTTY === true,
  },
): boolean {
  if (!tty.stdin || !tty.stdout) return false;
  if (opts.tui === false || opts.json === true || opts.export !== undefined) return false;
  if (!off(env.CI) || !off(env.NO_COLOR) || env.TERM === 'dumb' || env.FORCE_COLOR === '0')
    return false;
  return true;
}

/** Run the explorer (commands/tui.ts, which the bundle leaves to the ES modules: Ink is one). */
export async function openTui(file: string, opts: Record<string, unknown>): Promise<number> {
  return (await import('./tui.js')).openTui(file, opts);
}

export function registerExplore(program: Command, argv: readonly string[] = process.argv): void {
  program
    .command('explore')
    .description('open the interactive plan explorer (needs a terminal)')
    .argument('[scenario]', 'scenario file (YAML or JSON)', DEFAULT_SCENARIO)
    .option('--top <n>', 'plans to rank (default 1000)')
    .option('--detect', 'add the GPUs nvidia-smi reports to the owned hardware')
    .action(async (file: string, opts: Record<string, unknown>) => {
      if (!wantsTui(opts)) {
        process.stderr.write(
          `vramplan: the explorer needs a terminal (and colour allowed); use 'vramplan plan ${file}' for the plain report\n`,
        );
        process.exitCode = 1;
        return;
      }
      process.exitCode = await openTui(file, opts);
    });
  // Bare `vramplan`: the explorer on the default scenario in a terminal, help otherwise. Only then, so that
  // an unknown command still gets commander's "unknown command" error with a suggestion.
  if (argv.filter((a) => a !== '--no-color').length > 2) return;
  program.action(async () => {
    if (!wantsTui({})) {
      program.outputHelp();
      return;
    }
    process.exitCode = await openTui(DEFAULT_SCENARIO, {});
  });
}
