/** `vramplan estimate --from <file>`: the config's settings, the command line's flags on top, then estimate. */
import { archOfFrom, checkpointWeightsInto, formatName, mergeFlags } from '../core/from/index.js';
import { resolveModel } from '../io/load-model.js';
import { UserError } from '../io/errors.js';
import { FROM_EXIT, inFromConfig, readFromConfig } from '../io/from/read.js';
import type { RawFlags } from '../schema/flags.js';
import { runEstimate } from './estimate-run.js';
import { onlineModel } from './online-model.js';
import { admitFromPool } from './from-pool.js';
import { findGpu } from '../io/load-catalog.js';

export async function runEstimateFrom(
  file: string,
  model: unknown,
  cliFlags: RawFlags,
  json: boolean,
): Promise<number> {
  const config = readFromConfig(file);
  const spec = typeof model === 'string' ? model : config.model;
  if (spec === null)
    throw new UserError(
      `--model: missing; ${file} (${formatName(config.format)}) names no model: give --model <catalog id | Hugging Face id | config.json>`,
      undefined,
      FROM_EXIT,
    );
  const flags = mergeFlags(config, cliFlags);
  const arch = archOfFrom(config, resolveModel(await onlineModel(spec)), flags.seq);
  checkpointWeightsInto(config, cliFlags, flags, arch);
  const gpu = typeof flags.gpu === 'string' ? findGpu(flags.gpu) : undefined;
  admitFromPool(config, cliFlags, flags, arch, gpu);
  return inFromConfig(config, cliFlags, () =>
    runEstimate(arch, flags, json, {
      from: { file, format: config.format, deepspeed: config.deepspeedFile },
      warnings: config.warnings,
      ...(config.build ? { build: config.build } : {}),
    }),
  );
}
