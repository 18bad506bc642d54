/** Every subcommand, registered on the program. Actions import their implementation lazily. */
import type { Command } from 'commander';
import { registerEstimate } from './estimate.js';
import { registerExplain } from './explain.js';
import { registerLaunch } from './launch.js';
import { registerValidate } from './validate.js';
import { registerPlan } from './plan.js';
import { registerCompare } from './compare.js';
import { registerCatalog } from './catalog.js';
import { registerSchema } from './schema.js';

export function registerCommands(program: Command): void {
  registerEstimate(program);
  registerValidate(program);
  registerExplain(program);
  registerLaunch(program);
  registerPlan(program);
  registerCompare(program);
  registerCatalog(program);
  registerSchema(program);
}
