/**
 * `vramplan plan --from <config> --gpu <id>`: the config is the starting point. What it needs per GPU
 * against what the GPU has, then the nearest changes that fit, ranked, each with its time and quality
 * cost (the same search as `explain`, src/core/plan/explain.ts). Exit 0 when it fits or a change fits; 2 when
 * nothing does.
 */
import { explainFit } from '../core/plan/index.js';
import { archOfFrom, checkpointWeightsInto, formatName, mergeFlags } from '../core/from/index.js';
import { assertEngineStructure } from '../core/engines/context.js';
import { engineOf } from '../core/engines/engine.js';
import { UserError } from '../io/errors.js';
import { FROM_EXIT, inFromConfig, readFromConfig } from '../io/from/read.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { estimateCommand, optionsFromFlags } from '../schema/flags.js';
import { timeOptionsFromFlags } from '../schema/time.js';
import { withEngineDefaults } from '../core/engines/defaults.js';
import { renderExplainText } from '../ui/explain-text.js';
import { onlineModel } from './online-model.js';
import { admitFromPool } from './from-pool.js';

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
  const arch = archOfFrom(config, resolveModel(await onlineModel(spec)), flags.seq);
  checkpointWeightsInto(config, cli, flags, arch);
  const gpu = findGpu(opts.gpu);
  admitFromPool(config, cli, flags, arch, gpu);
  const options = inFromConfig(config, cli, () =>
    withEngineDefaults(optionsFromFlags(flags), flags),
  );
  // The config's engine bounds the context: past the model's positions where it scales RoPE itself (context.ts).
  inFromConfig(config, cli, () => assertEngineStructure(arch, options, engineOf(options)));
  // The run's accumulation (GRPO's generation batch), power limit and links, as `estimate --from` reads them.
  const time = inFromConfig(config, cli, () =>
    timeOptionsFromFlags(flags, options, gpu.boardPowerW),
  );
  // What the config's own tool keeps (axolotl's k-bit preparation), as `estimate --from` counts it.
  const e = explainFit(arch, options, gpu, time, config.build);
  const from = { file, format: config.format, deepspeed: config.deepspeedFile };
  // Each change as the `vramplan launch` command that writes its engine's configs (flag form).
  const accum =
    typeof flags['grad-accum'] === 'number' ? ` --grad-accum ${flags['grad-accum']}` : '';
  const launchOf = (o: typeof options, n: number) => {
    // GRPO's options carry their accumulation (steps per generation): the command already names it.
    const cmd = estimateCommand(spec, o);
    const acc = cmd.includes(' --grad-accum ') ? '' : accum;
    return `${cmd.replace(/^vramplan estimate/, 'vramplan launch --model')} --gpu ${opts.gpu as string}${acc} --out launch-fix-${n}`;
  };
  const fixes = e.fixes.map((f, i) => ({ ...f, launch: launchOf(f.options, i + 1) }));
  if (opts.json === true)
    process.stdout.write(
      `${JSON.stringify({ from, options, warnings: config.warnings, ...e, fixes }, null, 2)}\n`,
    );
  else {
    const w = config.warnings.map((line) => `  - ${line}`).join('\n');
    const launch = fixes[0] ? `\n\nwrite change 1 as configs: ${fixes[0].launch}` : '';
    process.stdout.write(
      `from ${file} (${formatName(config.format)})\n${renderExplainText(e)}${launch}${w ? `\n\nnot mapped from ${file}:\n${w}` : ''}\n`,
    );
  }
  return e.fits || e.fixes.length > 0 ? 0 : NOTHING_FITS;
}
