/** `vramplan validate`: the published-accuracy report against shipped measured peaks. */
import type { Command } from 'commander';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('compare estimates with published measured peaks (calibration/cases.json)')
    .option(
      '--cases <file>',
      'cases file inside calibration/ (cases.json or informative.json), or the path of one `check --case` wrote',
      'cases.json',
    )
    .option('--json', 'print rows and summaries as JSON')
    .option(
      '--throughput',
      'compare the time model with published measured speeds (calibration/throughput.json)',
    )
    .action(async (opts: { cases: string; json?: boolean; throughput?: boolean }) => {
      if (opts.throughput === true) {
        const { runValidateThroughput } = await import('./validate-throughput.js');
        const file = opts.cases === 'cases.json' ? 'throughput.json' : opts.cases;
        process.exitCode = runValidateThroughput(file, opts.json === true);
        return;
      }
      const { runValidate } = await import('./validate-run.js');
      process.exitCode = runValidate(opts.cases, opts.json === true);
    });
}
