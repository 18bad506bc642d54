/**
 * `vramplan check`: a finished run against the plan it was launched from (docs/check.md). Exit 0 inside the
 * plan's uncertainty band, 3 outside it, 1 on bad input.
 */
import type { Command } from 'commander';
import { UserError } from '../io/errors.js';

const collect = (v: string, prev: string[]): string[] => [...prev, v];

export function registerCheck(program: Command): void {
  program
    .command('check [folder]')
    .description(
      "compare a finished run (the measured.json its launch folder's probe wrote) with its plan; exit 0 inside the plan's band, 3 outside",
    )
    .option(
      '--log <file>',
      "a trainer log or a /metrics dump to read as well (repeatable; with --from, the run's record)",
      collect,
      [],
    )
    .option(
      '--case [file]',
      'write the run as calibration rows (default <folder>/vramplan-case.json) for validate --cases',
    )
    .option(
      '--from <config>',
      'your own folder: the config a --from reader maps (Trainer args, axolotl, torchtune, serve.sh, ...)',
    )
    .option('--model <model>', 'with --from: the model, where the config names none')
    .option('--gpu <id>', "with --from: the GPU the run used (see 'vramplan catalog gpus')")
    .option('--json', 'print the comparison as JSON')
    .option('--force', 'replace an existing --case file')
    .action(async (folder: string | undefined, opts: Record<string, unknown>) => {
      const run = await import('./check-run.js');
      const caseOpt = opts.case;
      const f = {
        logs: (opts.log as string[] | undefined) ?? [],
        case:
          caseOpt === true ? (true as const) : typeof caseOpt === 'string' ? caseOpt : undefined,
        json: opts.json === true,
        force: opts.force === true,
      };
      if (opts.from !== undefined) {
        if (folder !== undefined)
          throw new UserError('check: give a launch folder or --from <config>, not both');
        const cli: Record<string, unknown> = {};
        if (typeof opts.gpu === 'string') cli.gpu = opts.gpu;
        process.exitCode = await run.runCheckFrom(String(opts.from), opts.model, cli, f);
        return;
      }
      if (folder === undefined)
        throw new UserError(
          'check: give a launch folder (vramplan check run1) or --from <config> --gpu <id> --log <file>',
        );
      if (opts.model !== undefined || opts.gpu !== undefined)
        throw new UserError('--model and --gpu: only with --from (a launch folder names its own)');
      process.exitCode = run.runCheckFolder(folder, f);
    });
}
