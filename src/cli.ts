#!/usr/bin/env node
// vramplan entry. `--version` answers before anything else loads (it is what scripts call to check the
// install); every other call runs the commander program (commands/program.ts, from the bundle a full build
// writes: commands/load-program.ts), which loads only the command named on the command line.
import { VERSION } from './commands/version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) console.log(VERSION);
else {
  const { loadProgram } = await import('./commands/load-program.js');
  await (await loadProgram()).runProgram(process.argv);
}
