/** `vramplan schema [--write]`: the scenario JSON Schema (generated from the zod schema) for editors. */
import type { Command } from 'commander';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the scenario JSON Schema (or --write it to scenarios/scenario.schema.json)')
    .option('--write', 'write scenarios/scenario.schema.json')
    .action(async (opts: Record<string, unknown>) => {
      const { scenarioJsonSchema } = await import('../schema/scenario.js');
      const text = `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
      if (opts.write === true) {
        const { writeFileSync } = await import('node:fs');
        const { packagePath } = await import('../io/paths.js');
        const file = packagePath('scenarios/scenario.schema.json');
        writeFileSync(file, text);
        process.stdout.write(`wrote ${file} (${Buffer.byteLength(text)} bytes)\n`);
      } else process.stdout.write(text);
    });
}
