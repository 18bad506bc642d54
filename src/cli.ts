#!/usr/bin/env node
// vramplan entry. `--version` answers before anything else loads (it is what scripts call to check the
// install); every other call builds the commander program (commands/program.ts), which loads only the command
// named on the command line.
import { VERSION } from './commands/version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) console.log(VERSION);
else await (await import('./commands/program.js')).runProgram(process.argv);
