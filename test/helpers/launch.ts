// A LaunchInput built as `vramplan launch --model <model> <flags> --gpu <gpu> --grad-accum 4` builds it: the
// contract flags, then the defaults of the engine `--framework` names (core/engines/defaults.ts).
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import type { LaunchInput } from '../../src/core/launch/index.js';
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
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const g = findGpu(gpu);
  return {
    arch,
    options,
    gpu: g,
    gradAccum: 4,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, g),
    modelRef: arch.hfId ?? model,
    ...extra,
  };
}
