/** `vramplan compare <scenario> <scenario>...`: the best plans of each scenario side by side. */
import type { Command } from 'commander';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('the best plans of several scenarios side by side')
    .argument('<scenarios...>', 'two or more scenario files')
    .option('--json', 'print one JSON object: { scenarios: [{ file, result }] }')
    .option('--top <n>', 'plans per scenario (default 3)')
    .option(
      '--no-tui',
      'print the plain table even in a terminal (the compare view opens otherwise)',
    )
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const { runCompare } = await import('./compare-run.js');
      process.exitCode = await runCompare(files, opts);
    });
}
