/** `vramplan plan <scenario>`: search every way to do the job and rank it. parse → load → plan → render. */
import type { Command } from 'commander';

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description("search every way to do a scenario's job; rank by cost, power and slowdown")
    .argument('<scenario>', 'scenario file (YAML or JSON), e.g. scenarios/default.yaml')
    .option('--json', 'print the PlanResult as one JSON object')
    .option('--top <n>', 'plans to show (default 10)')
    .option('--export <file>', 'write the plans to a .json, .csv, .md or .svg file (atomically)')
    .option('--force', 'overwrite the --export file if it exists')
    .option('--detect', 'add the GPUs nvidia-smi reports to the owned hardware')
    .option('--no-tui', 'print the plain report even in a terminal (the explorer opens otherwise)')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { runPlan } = await import('./plan-run.js');
      process.exitCode = await runPlan(file, opts);
    });
}
