/** `vramplan catalog gpus|models|offers|circuits [id]`: list and show catalog entries. */
import type { Command } from 'commander';

export function registerCatalog(program: Command): void {
  program
    .command('catalog')
    .description('list or show catalog entries')
    .argument('<kind>', 'gpus, models, offers or circuits')
    .argument('[id]', 'show one entry (models: or search by name)')
    .option('--json', 'print JSON')
    .action(async (kind: string, id: string | undefined, opts: Record<string, unknown>) => {
      const { runCatalog } = await import('./catalog-run.js');
      process.exitCode = runCatalog(kind, id, opts.json === true);
    });
}
