#!/usr/bin/env node
// vramplan entry. `--version` answers before anything else loads (it is what scripts call to check the
// install); every other call runs the commander program (commands/program.ts, from the bundle a full build
// writes: commands/load-program.ts), which loads only the command named on the command line.
import { VERSION } from './commands/version.js';

/**
 * Commands whose work is over when the program returns (their actions await everything they start, the
 * explorer included): once their output is written the process exits, instead of letting Node wait at exit
 * for V8's queued background compiles of the search's code, which nothing will run (src/node_platform.cc
 * NodePlatform::DrainTasks before `beforeExit`; process.exit stops the queue: NodePlatform::Shutdown). A
 * cold `plan` waited 20-70 ms there on two cores (docs/performance.md).
 */
const EXITS_WHEN_DONE = new Set(['plan', 'estimate']);

/** Resolves once `s` has handed everything written to it to the OS. */
const flushed = (s: NodeJS.WriteStream): Promise<void> =>
  s.writableLength === 0 ? Promise.resolve() : new Promise((done) => s.once('drain', done));

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) console.log(VERSION);
else {
  const { loadProgram } = await import('./commands/load-program.js');
  await (await loadProgram()).runProgram(process.argv);
  if (EXITS_WHEN_DONE.has(args[0] ?? '')) {
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(); // with process.exitCode, as the program set it
  }
}
