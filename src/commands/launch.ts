/**
 * `vramplan launch`: the launch folder of one plan, for the engine the plan was modelled on (DeepSpeed,
 * Accelerate FSDP/DDP with the Trainer, torchtune, vLLM, transformers generate): a ranked plan of a
 * scenario (`launch <scenario> --plan N`), a plan of an exported plans.json (`--from-plan`), or flags.
 */
import type { Command } from 'commander';
import { UserError } from '../io/errors.js';
import { addContractOptions, rawFlagsOf, VISION_FLAGS } from './estimate.js';

export function registerLaunch(program: Command): void {
  const cmd = program
    .command('launch [scenario]')
    .description(
      'write the launch folder (engine configs, scripts, README) of plan N of a scenario, of an exported plan, or of one configuration given by flags',
    )
    .option('--plan <n>', 'plan number as ranked by `vramplan plan` (default 1)')
    .option(
      '--from-plan <plans.json>',
      'a file written by `vramplan plan --json` or `--export x.json`',
    )
    .option(
      '--model <model>',
      'flag form: catalog id, Hugging Face repo id, or path to config.json / a checkpoint folder',
    );
  addContractOptions(cmd)
    .option('--grad-accum <n>', 'flag form: gradient accumulation steps (default 1)')
    .option(
      '--power-limit <limit>',
      'flag form: per-GPU power cap, watts (300W) or a fraction of board power (0.8), written as nvidia-smi -pl commands',
    )
    .option(
      '--sharding <how>',
      'flag form, --zero 1-3: deepspeed (Trainer + DeepSpeed) or fsdp (Accelerate FSDP); default: the --framework engine',
    )
    .option(
      '--offer <id>',
      'flag form: the catalog offer (catalogs/offers/) the GPUs are rented from; also writes sky.yaml, a SkyPilot task',
    );
  // --images / --image-pixels as estimate takes them (flag form; a ranked plan carries its own options).
  for (const [flag, value, description] of VISION_FLAGS)
    cmd.option(`--${flag} ${value}`, `flag form, ${description}`);
  cmd
    .requiredOption('--out <dir>', 'folder to create (written atomically)')
    .option(
      '--force',
      'replace --out if it exists and holds only the files launch wrote there, unchanged',
    )
    .option('--keep-old', 'move an existing --out aside as <out>.old-<time>, then write')
    .action(async (scenario: string | undefined, opts: Record<string, unknown>) => {
      const run = await import('./launch-run.js');
      await run.loadLaunchers();
      const lf = {
        gradAccum: opts.gradAccum,
        powerLimit: opts.powerLimit,
        sharding: opts.sharding,
        out: String(opts.out),
        force: opts.force === true,
        keepOld: opts.keepOld === true,
        offer: opts.offer,
      };
      const sources = [scenario, opts.fromPlan, opts.model].filter((x) => x !== undefined);
      if (sources.length !== 1)
        throw new UserError(
          'launch: give exactly one of <scenario>, --from-plan <plans.json> or --model <model>',
          'e.g. vramplan launch scenarios/default.yaml --plan 1 --out run1',
        );
      if (opts.offer !== undefined && opts.model === undefined)
        throw new UserError(
          '--offer: only with --model (a ranked plan carries its own offer)',
          'e.g. vramplan launch --model llama-3.1-8b --gpu h100-sxm --gpus 8 --offer lambda-h100-sxm-on-demand-8x --out run1',
        );
      if (scenario !== undefined)
        process.exitCode = await run.runLaunchScenario(scenario, opts.plan, lf);
      else if (opts.fromPlan !== undefined)
        process.exitCode = run.runLaunchFromPlan(String(opts.fromPlan), opts.plan, lf);
      else {
        if (opts.plan !== undefined)
          throw new UserError('--plan: needs a <scenario> or --from-plan <plans.json>');
        process.exitCode = run.runLaunch(String(opts.model), rawFlagsOf(opts), lf);
      }
    });
}
