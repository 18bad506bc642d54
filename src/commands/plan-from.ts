/**
 * `vramplan plan --from <config> --gpu <id>`: the config is the starting point. What it needs per GPU
 * against what the GPU has, then the nearest changes that fit, ranked, each with its time and quality
 * cost (the same search as `explain`, src/core/explain.ts). Exit 0 when it fits or a change fits; 2 when
 * nothing does.
 */
import { explainFit } from '../core/explain.js';
import { formatName, mergeFlags } from '../core/from/index.js';
import { assertStructure } from '../core/structure.js';
import { UserError } from '../io/errors.js';
import { FROM_EXIT, readFromConfig } from '../io/from/read.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { optionsFromFlags } from '../schema/flags.js';
import { renderExplainText } from '../ui/explain-text.js';
import { onlineModel } from './online-model.js';

const NOTHING_FITS = 2;

export async function runPlanFrom(
  file: string,
  scenario: string | undefined,
  opts: Record<string, unknown>,
): Promise<number> {
  if (scenario !== undefined)
    throw new UserError(
      `plan: got both a scenario (${scenario}) and --from ${file}; give one of them`,
    );
  if (typeof opts.gpu !== 'string')
    throw new UserError(
      '--gpu: required with plan --from (the GPU the config must fit)',
      "See 'vramplan catalog gpus' for ids.",
    );
  const config = readFromConfig(file);
  const spec = typeof opts.model === 'string' ? opts.model : config.model;
  if (spec === null)
    throw new UserError(
      `--model: missing; ${file} (${formatName(config.format)}) names no model: give --model <catalog id | Hugging Face id | config.json>`,
      undefined,
      FROM_EXIT,
    );
  const cli: Record<string, unknown> = { gpu: opts.gpu };
  if (opts.gpus !== undefined) cli.gpus = opts.gpus;
  const flags = mergeFlags(config, cli);
  const options = optionsFromFlags(flags);
  const gpu = findGpu(opts.gpu);
  const arch = resolveModel(await onlineModel(spec));
  assertStructure(arch, options);
  const e = explainFit(arch, options, gpu);
  const from = { file, format: config.format, deepspeed: config.deepspeedFile };
  if (opts.json === true)
    process.stdout.write(
      `${JSON.stringify({ from, options, warnings: config.warnings, ...e }, null, 2)}\n`,
    );
  else {
    const w = config.warnings.map((line) => `  - ${line}`).join('\n');
    process.stdout.write(
      `from ${file} (${formatName(config.format)})\n${renderExplainText(e)}${w ? `\n\nnot mapped from ${file}:\n${w}` : ''}\n`,
    );
  }
  return e.fits || e.fixes.length > 0 ? 0 : NOTHING_FITS;
}
