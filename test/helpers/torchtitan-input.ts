// A torchtitan launch input for the engine's tests: the contract flags over a full fp32 ZeRO-3 base, on one H100.
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import type { LaunchInput } from '../../src/core/launch/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

export const TORCHTITAN_BASE = {
  framework: 'torchtitan',
  method: 'full',
  weights: 'fp32',
  zero: 3,
};

export function torchtitanInput(
  model: string,
  flags: Record<string, unknown>,
  extra: Partial<LaunchInput> = {},
): LaunchInput {
  const arch = resolveModel(model);
  const asked = optionsFromFlags({ ...TORCHTITAN_BASE, ...flags });
  const options = onEngine(asked, engineOf(asked));
  const gpu = findGpu('h100-sxm');
  return {
    arch,
    options,
    gpu,
    gradAccum: 4,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
    ...extra,
  };
}
