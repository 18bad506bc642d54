/** `vramplan plan <scenario>`: search every way to do the job and rank it. parse → load → plan → render. */
import type { Command } from 'commander';
import { FlagError } from '../schema/flags.js';
import { UserError } from '../io/errors.js';

/** Flags of `plan --from` that a scenario sets in its own fields. */
const FROM_ONLY: [flag: string, key: string, field: string][] = [
  ['gpu', 'gpu', 'the GPUs in hardware.owned / hardware.rent'],
  ['gpus', 'gpus', 'GPU counts in hardware.owned / limits.maxGpus'],
  ['model', 'model', 'the model in its model field'],
];

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description(
      "search every way to do a scenario's job; rank by cost, time, wall power or x fastest",
    )
    .argument('[scenario]', 'scenario file (YAML or JSON), e.g. scenarios/default.yaml')
    .option(
      '--from <file>',
      'start from a training or serving config (axolotl, LLaMA-Factory, torchtune, TRL, DeepSpeed, Accelerate, Unsloth, LitGPT, torchtitan; a vLLM, SGLang or llama-server command line or serve.sh, vLLM --config YAML) instead of a scenario: what it needs on --gpu, and the nearest changes that fit',
    )
    .option('--gpu <id>', 'with --from: the GPU to fit (catalog id)')
    .option('--gpus <n>', 'with --from: GPUs in the job (default: what the file says, else 1)')
    .option(
      '--model <model>',
      "with --from: the model, when the file names none or one that isn't known offline",
    )
    .option('--json', 'print the PlanResult as one JSON object')
    .option('--top <n>', 'plans to show (default 10)')
    .option('--export <file>', 'write the plans to a .json, .csv, .md or .svg file (atomically)')
    .option('--force', 'overwrite the --export file if it exists')
    .option('--detect', 'add the GPUs nvidia-smi reports to the owned hardware')
    .option('--no-tui', 'print the plain report even in a terminal (the explorer opens otherwise)')
    .action(async (file: string | undefined, opts: Record<string, unknown>) => {
      if (typeof opts.from === 'string') {
        const { runPlanFrom } = await import('./plan-from.js');
        process.exitCode = await runPlanFrom(opts.from, file, opts);
        return;
      }
      if (file === undefined)
        throw new FlagError(
          'scenario',
          undefined,
          'a scenario file, or --from <training config> --gpu <id>',
        );
      // A scenario names its own model and GPUs: these flags would be silently ignored.
      for (const [flag, key, field] of FROM_ONLY)
        if (opts[key] !== undefined)
          throw new UserError(
            `--${flag}: applies only with --from; the scenario sets ${field} (edit ${file})`,
          );
      const { runPlan } = await import('./plan-run.js');
      process.exitCode = await runPlan(file, opts);
    });
}
