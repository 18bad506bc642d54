/** Every subcommand, registered on the program. Actions import their implementation lazily. */
import type { Command } from 'commander';
import { registerEstimate } from './estimate.js';
import { registerValidate } from './validate.js';

export function registerCommands(program: Command): void {
  registerEstimate(program);
  registerValidate(program);
}
