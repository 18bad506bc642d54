// A LaunchInput built as `vramplan launch --model <model> <flags> --gpu <gpu> --grad-accum 4` builds it: the
// contract flags, then the defaults of the engine `--framework` names (core/engines/defaults.ts).
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { modelRepo } from '../../src/core/model/arch.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

export function launchInputOf(
  model: string,
  gpu: string,
  flags: Record<string, unknown>,
  extra: Partial<Omit<LaunchInput, 'estimate'>> = {},
): LaunchInput<EstimateResult> {
  const arch = resolveModel(model);
  // The launch's accumulation is GRPO's steps_per_generation (TRL's default), as `vramplan launch` reads it.
  const gradAccum = extra.gradAccum ?? 4;
  const all = { 'grad-accum': gradAccum, ...flags };
  const options = withEngineDefaults(optionsFromFlags(all), all);
  const g = findGpu(gpu);
  return {
    arch,
    options,
    gpu: g,
    gradAccum,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, g),
    modelRef: modelRepo(arch) ?? model,
    ...extra,
  };
}

/** What `launch` writes for a serving plan (its options and estimate on `gpu`, one launch at a time). */
export function serveLaunchOf(
  arch: LaunchInput['arch'],
  options: LaunchInput['options'],
  gpu: LaunchInput['gpu'],
  estimate: EstimateResult,
) {
  return buildLaunch({
    arch,
    options,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate,
    modelRef: modelRepo(arch) ?? arch.id,
  });
}

/** The serve.sh `launch` writes for a serving plan. */
export function serveShOf(
  arch: LaunchInput['arch'],
  options: LaunchInput['options'],
  gpu: LaunchInput['gpu'],
  estimate: EstimateResult,
): string {
  return serveLaunchOf(arch, options, gpu, estimate)
    .outputs.flatMap((x) => (x.ok ? x.files : []))
    .find((f) => f.path === 'serve.sh')!.content;
}
