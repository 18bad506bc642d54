/** `vramplan explain`: why a configuration does not fit, and the cheapest changes that make it fit. */
import type { Command } from 'commander';
import { addContractOptions, addTimeOptions, rawFlagsOf } from './estimate.js';

export function registerExplain(program: Command): void {
  const cmd = program
    .command('explain')
    .description('name what overflows the GPU and the cheapest changes that make it fit')
    .requiredOption(
      '--model <model>',
      'catalog id, Hugging Face repo id, or path to config.json / a checkpoint folder',
    );
  addTimeOptions(addContractOptions(cmd))
    .option('--json', 'print the explanation as one JSON object')
    .action(async (opts: Record<string, unknown>) => {
      const { runExplain } = await import('./explain-run.js');
      process.exitCode = runExplain(String(opts.model), rawFlagsOf(opts), opts.json === true);
    });
}
