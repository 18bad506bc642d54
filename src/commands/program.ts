// The commander program: register commands, run. Commands load lazily so that `estimate --json` never
// imports Ink or React.
// Registers the built-in engines (profiles, memory profiles, readers; launchers load on demand) for every command.
import '../core/engines/registry.js';
import { Command, CommanderError } from 'commander';
import { commandNamed, registerCommands } from './index.js';
import { registerExplore } from './explore.js';
import { reportError } from './errors.js';
import { VERSION } from './version.js';

// React's production build for the explorer (development builds are several times slower to render).
process.env.NODE_ENV ??= 'production';
if (process.env.NO_COLOR || process.env.TERM === 'dumb' || process.argv.includes('--no-color')) {
  process.env.FORCE_COLOR = '0'; // chalk (Ink) honours FORCE_COLOR but not NO_COLOR (docs/reference/ecosystem.md §5)
}

export async function runProgram(argv: readonly string[]): Promise<void> {
  const program = new Command('vramplan')
    .description(
      'Where GPU memory goes when you fine-tune or serve an LLM, and the cheapest plan that fits.',
    )
    .version(VERSION)
    // Global, so every command accepts it after its arguments; its effect (FORCE_COLOR=0) is set above.
    .option('--no-color', 'plain text without ANSI colours (also NO_COLOR=1)')
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    // Commander's own parse errors ("error: unknown option '--bogus'") start as every other error does,
    // with "vramplan:" (subcommands inherit this from the program).
    .configureOutput({
      outputError: (text, write) => write(`vramplan: ${text.replace(/^error: /, '')}`),
    })
    .exitOverride();
  // A reader that stops early (`vramplan plan x.yaml --json | head`) closes the pipe: stop quietly, as Unix
  // tools do, instead of a stack trace from the unhandled EPIPE.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  // Only the command named on the command line loads its registration (all of them for help or a typo).
  await registerCommands(program, commandNamed(argv));
  registerExplore(program); // `explore [scenario]`, and bare `vramplan` in a terminal

  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; usage errors were already printed by commander on one line.
      process.exitCode = err.exitCode === 0 ? 0 : 1;
    } else {
      process.exitCode = reportError(err);
    }
  }
}
