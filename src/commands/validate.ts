/** `vramplan validate`: the published-accuracy report against shipped measured peaks. */
import type { Command } from 'commander';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('compare estimates with published measured peaks (calibration/cases.json)')
    .option(
      '--cases <file>',
      'cases file inside calibration/ (cases.json or informative.json)',
      'cases.json',
    )
    .option('--json', 'print rows and summaries as JSON')
    .action(async (opts: { cases: string; json?: boolean }) => {
      const { runValidate } = await import('./validate-run.js');
      process.exitCode = runValidate(opts.cases, opts.json === true);
    });
}
