/** `vramplan launch`: engine configs (DeepSpeed, Accelerate, Trainer/PEFT/bitsandbytes, torchtune, axolotl) for one plan. */
import type { Command } from 'commander';
import { addContractOptions, rawFlagsOf } from './estimate.js';

export function registerLaunch(program: Command): void {
  const cmd = program
    .command('launch')
    .description('write launchable engine configs and a README for one configuration into a folder')
    .requiredOption(
      '--model <model>',
      'catalog id, Hugging Face repo id, or path to config.json / a checkpoint folder',
    );
  addContractOptions(cmd)
    .option('--grad-accum <n>', 'gradient accumulation steps (default 1)')
    .option('--power-limit <watts>', 'per-GPU power cap written as nvidia-smi -pl commands')
    .option('--sharding <how>', 'deepspeed or fsdp, for --zero 1-3 (default deepspeed)')
    .requiredOption('--out <dir>', 'folder to create (written atomically)')
    .option('--force', 'replace --out if it exists')
    .action(async (opts: Record<string, unknown>) => {
      const { runLaunch } = await import('./launch-run.js');
      process.exitCode = runLaunch(String(opts.model), rawFlagsOf(opts), {
        gradAccum: opts.gradAccum,
        powerLimit: opts.powerLimit,
        sharding: opts.sharding,
        out: String(opts.out),
        force: opts.force === true,
      });
    });
}
